import type { OutboundConfig } from '../config/schema.js';
import type { Outbound } from '../contracts/outbound.js';
import { BlockOutbound } from './block-outbound.js';
import { DirectOutbound } from './direct-outbound.js';
import { OutboundSet, type Policy } from './outbound-set.js';
import { SelectorPolicy } from './selector-policy.js';
import { UrlTestPolicy } from './url-test-policy.js';

export class UnsupportedOutboundError extends Error {
  readonly code = 'OUTBOUND_UNSUPPORTED';
}

/** Builds every configured outbound, leaves and groups, into one set. */
export function buildOutbounds(configs: readonly OutboundConfig[]): OutboundSet {
  const leaves = new Map<string, Outbound>();
  const policies = new Map<string, Policy>();
  for (const c of configs) {
    switch (c.type) {
      case 'direct':
        leaves.set(c.tag, new DirectOutbound(c.tag));
        break;
      case 'block':
        leaves.set(c.tag, new BlockOutbound(c.tag));
        break;
      case 'selector':
        policies.set(c.tag, new SelectorPolicy(c.tag, c.members, c.default));
        break;
      case 'url_test':
        policies.set(c.tag, new UrlTestPolicy(c.tag, c.members));
        break;
      default:
        throw new UnsupportedOutboundError(`outbound "${c.tag}": type "${c.type}" is not available in this build`);
    }
  }
  return new OutboundSet(leaves, policies);
}
