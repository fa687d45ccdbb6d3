import type { Socket } from 'node:net';
import type { RelayHop } from '../../streams/contract.js';
import type { SocksTarget } from '../socks5/socks5-wire.js';

/** What an upstream tells its association. */
export interface UdpUpstreamEvents {
  /**
   * A datagram for the client, already framed with the SOCKS UDP header of its source.
   * `payloadBytes` excludes that header; `wireBytes` is what the upstream socket received.
   */
  reply(framed: Buffer | readonly Buffer[], payloadBytes: number, wireBytes: number): void;
  /**
   * A datagram for the remote went out: the kernel took it. `payloadBytes` excludes a
   * SOCKS UDP header; `wireBytes` is what the upstream socket sent.
   */
  sent(payloadBytes: number, wireBytes: number): void;
  /** The kernel or the resolver refused a send: the datagram is not counted as sent. */
  sendFailed(err: Error): void;
  /** A datagram from upstream that cannot be relayed (malformed or fragmented). */
  recvFailed(): void;
  /** The upstream ended by itself: the hop closed the association's control connection, a socket failed. */
  broken(err: Error): void;
}

/**
 * Tells `events` how one datagram's send ended, from dgram's send callback: sent, with
 * `headerBytes` of what went on the wire not payload, or refused.
 */
export function reportSend(events: UdpUpstreamEvents, err: Error | null, bytes: number, headerBytes: number): void {
  if (err) events.sendFailed(err);
  else events.sent(bytes - headerBytes, bytes);
}

/** Where an association's datagrams go: straight to their destinations, or through a SOCKS5 hop's relay. */
export interface UdpUpstream {
  /** One element per hop; empty when direct. */
  readonly relay_chain: RelayHop[];
  /** The address dialled: the first destination's (direct) or the hop's (chained). */
  readonly resolved_ip: string | undefined;
  /** The hop's TCP control connection, for the boundary counters; null when direct. */
  readonly control: Socket | null;
  /** Sends one payload to `target`; `sent` or `sendFailed` follows. */
  send(target: SocksTarget, data: Buffer): void;
  /** Ends the upstream; no event follows. */
  close(): void;
}
