import type { OutboundConfig } from '../config/schema.js';
import type { Outbound } from '../contracts/outbound.js';
import { BlockOutbound } from './block-outbound.js';
import { ChainOutbound } from './chain-outbound.js';
import { DirectOutbound } from './direct-outbound.js';
import { HttpOutbound } from './http-outbound.js';
import { hopOf, type Hop } from './hop.js';
import { OutboundSet, type Policy } from './outbound-set.js';
import { SelectorPolicy } from './selector-policy.js';
import { SocksOutbound } from './socks-outbound.js';
import { UrlTestPolicy } from './url-test-policy.js';
import { WeirError } from '../errors/weir-error.js';
import { systemLookup, type ResolveTarget } from '../net/target-resolver.js';

export class UnknownHopError extends WeirError<'OUTBOUND_UNKNOWN_HOP'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('OUTBOUND_UNKNOWN_HOP', message, options);
  }
}

/** Every socks/http outbound as a hop, by tag: chains name their hops by these tags. */
function hopsByTag(configs: readonly OutboundConfig[]): Map<string, Hop> {
  const hops = new Map<string, Hop>();
  for (const c of configs) {
    if (c.type === 'socks' || c.type === 'http') hops.set(c.tag, hopOf(c));
  }
  return hops;
}

function chainHops(tag: string, hopTags: readonly string[], hops: ReadonlyMap<string, Hop>): Hop[] {
  return hopTags.map((hopTag) => {
    const hop = hops.get(hopTag);
    // Config validation checks hop references; this guards a config built in code.
    if (!hop) throw new UnknownHopError(`chain "${tag}": hop "${hopTag}" is not a socks or http outbound`);
    return hop;
  });
}

/** Builds every configured outbound, leaves and groups, into one set; direct ones resolve names with `resolve`. */
export function buildOutbounds(configs: readonly OutboundConfig[], resolve: ResolveTarget = systemLookup): OutboundSet {
  const hops = hopsByTag(configs);
  const leaves = new Map<string, Outbound>();
  const policies = new Map<string, Policy>();
  for (const c of configs) {
    switch (c.type) {
      case 'direct':
        leaves.set(c.tag, new DirectOutbound(c.tag, resolve));
        break;
      case 'block':
        leaves.set(c.tag, new BlockOutbound(c.tag));
        break;
      case 'socks':
        leaves.set(c.tag, new SocksOutbound(c));
        break;
      case 'http':
        leaves.set(c.tag, new HttpOutbound(c));
        break;
      case 'chain':
        leaves.set(c.tag, new ChainOutbound(c.tag, chainHops(c.tag, c.hops, hops)));
        break;
      case 'selector':
        policies.set(c.tag, new SelectorPolicy(c.tag, c.members, c.default));
        break;
      case 'url_test':
        policies.set(c.tag, new UrlTestPolicy(c.tag, c.members));
        break;
      default: {
        // A new outbound type must be built here: this fails to compile until it is.
        const unbuilt: never = c;
        throw new Error(`outbound type of ${JSON.stringify(unbuilt)} is not built`);
      }
    }
  }
  return new OutboundSet(leaves, policies);
}
