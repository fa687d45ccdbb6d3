import type { OutboundSet } from '../outbounds/outbound-set.js';
import { SelectorPolicy } from '../outbounds/selector-policy.js';
import { UrlTestPolicy } from '../outbounds/url-test-policy.js';
import type { Router } from '../router/router.js';
import type { RoutingState } from './worker-messages.js';

/** The hub's mode and group choices, as every worker is to route. */
export function routingStateOf(router: Router, outbounds: OutboundSet, reload: boolean): RoutingState {
  const selections = Object.fromEntries([...outbounds.policies.values()].map((p) => [p.tag, p.current()]));
  return { ...router.mode, selections, reload };
}

/**
 * Makes a worker route as the hub does. A group or member the worker does not know is
 * skipped: the two read the same config, so it is one the hub does not know either.
 */
export function applyRoutingState(state: RoutingState, router: Router, outbounds: OutboundSet): void {
  router.setMode(state.mode, state.global_target);
  for (const [tag, member] of Object.entries(state.selections)) {
    const policy = outbounds.policies.get(tag);
    if (!policy?.members.includes(member) || policy.current() === member) continue;
    if (policy instanceof SelectorPolicy) policy.select(member);
    else if (policy instanceof UrlTestPolicy) policy.choose(member);
  }
}
