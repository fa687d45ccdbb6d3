import type { WeirConfig } from '../config/schema.js';
import { targetResolver, type ResolveTarget } from '../net/target-resolver.js';
import { buildOutbounds } from '../outbounds/build-outbounds.js';
import type { OutboundSet } from '../outbounds/outbound-set.js';
import { Router } from '../router/router.js';
import { routerOptions } from './router-options.js';

/** What routes a flow: the router, the outbounds and the resolver they share. */
export interface RoutingParts {
  router: Router;
  outbounds: OutboundSet;
  resolve: ResolveTarget;
}

/** Built once per process that routes flows: the node's, and each worker's. */
export function routingParts(config: WeirConfig): RoutingParts {
  const resolve = targetResolver(config.dns);
  return { router: new Router(routerOptions(config)), outbounds: buildOutbounds(config.outbounds, resolve), resolve };
}
