import type { Endpoint } from '../../streams/contract.js';
import type { DialOptions, DialResult, Outbound } from '../contracts/outbound.js';
import { dialHops } from './hop-dial.js';
import type { Hop } from './hop.js';

/**
 * Relays through upstream proxies in order: outcome `chained_relayed`. A `socks` or
 * `http` outbound is a chain of one hop that carries its own protocol name.
 */
export class ChainOutbound implements Outbound {
  readonly kind = 'relay';
  readonly chained = true;

  constructor(
    readonly tag: string,
    readonly hops: readonly Hop[],
    readonly protocol: 'chain' | 'socks' | 'http' = 'chain',
  ) {
    if (hops.length === 0) throw new RangeError(`chain "${tag}" has no hops`);
  }

  dial(target: Endpoint, opts: DialOptions): Promise<DialResult> {
    return dialHops(this.hops, target, opts.connectTimeoutMs);
  }
}
