import type { Outbound } from '../contracts/outbound.js';
import { FlowFailureError } from '../errors/flow-failure.js';
import type { SocksTarget } from '../socks5/socks5-wire.js';
import { ChainOutbound } from '../outbounds/chain-outbound.js';
import { DirectOutbound } from '../outbounds/direct-outbound.js';
import { DirectUdpUpstream } from './direct-udp-upstream.js';
import { SocksUdpUpstream } from './socks-udp-upstream.js';
import { refuseUndeliverable } from './udp-destination.js';
import type { UdpUpstream, UdpUpstreamEvents } from './udp-upstream.js';

export interface UdpOpenOptions {
  /** flows.connect_timeout_ms: a hop's UDP ASSOCIATE must be answered within it. */
  timeoutMs: number;
  /** route.block_private: a direct upstream sends nothing to a private address. */
  refusePrivate: boolean;
}

/**
 * Opens the upstream of a UDP association on `outbound`. Direct relays from sockets
 * of its own; a single SOCKS5 hop relays through its UDP ASSOCIATE. HTTP CONNECT
 * carries no datagrams, and a chain of several hops would send them around the first
 * hops, so both fail with UDP_UNSUPPORTED. A first destination that names no remote
 * fails TARGET_INVALID before anything is set up.
 */
export async function openUdpUpstream(outbound: Outbound, first: SocksTarget, opts: UdpOpenOptions, events: UdpUpstreamEvents): Promise<UdpUpstream> {
  refuseUndeliverable(first);
  if (outbound instanceof DirectOutbound) return DirectUdpUpstream.open(first, events, (host) => outbound.firstAddress(host), opts.refusePrivate);
  const hop = outbound instanceof ChainOutbound && outbound.hops.length === 1 ? outbound.hops[0] : undefined;
  if (hop?.protocol === 'socks') return SocksUdpUpstream.open(hop, opts.timeoutMs, events);
  throw new FlowFailureError('UDP_UNSUPPORTED', `outbound "${outbound.tag}" (${outbound.protocol}) cannot carry UDP`);
}
