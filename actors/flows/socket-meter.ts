import type { Socket } from 'node:net';
import type { FlowTraffic } from '../../streams/contract.js';

/** Byte counts of a client connection at some point: where one flow's share of it starts or ends. */
export interface ClientMark {
  rx: number;
  tx: number;
}

/**
 * The stretch of a client connection whose bytes are one flow's: from `from()` to
 * `to()`, or on to the connection's current counts while `to()` is null. While `from()`
 * is null the flow's share has not begun: a pipelined HTTP request whose predecessor
 * has not ended yet has nothing of its own on the wire.
 */
export interface ClientSpan {
  from(): ClientMark | null;
  to(): ClientMark | null;
}

const START: ClientMark = { rx: 0, tx: 0 };
/** A connection that is all one flow's. */
export const WHOLE_CONNECTION: ClientSpan = { from: () => START, to: () => null };

/** The part of the client's counts (`rx`, and `tx` as the caller reads it) in `span`. */
function spanCount(span: ClientSpan, now: number, key: keyof ClientMark): number {
  const from = span.from();
  return from ? Math.max(0, (span.to()?.[key] ?? now) - from[key]) : 0;
}

/**
 * The counters of a flow that ended before it relayed (blocked, failed, cancelled): its
 * client's handshake and answer are all that crossed a boundary.
 */
export function clientOnlyTraffic(client: Socket, span: ClientSpan = WHOLE_CONNECTION): FlowTraffic {
  return {
    bytes_up: 0,
    bytes_down: 0,
    inbound_rx_bytes: spanCount(span, client.bytesRead, 'rx'),
    inbound_tx_bytes: spanCount(span, client.bytesWritten, 'tx'),
    outbound_rx_bytes: 0,
    outbound_tx_bytes: 0,
    packets_up: null,
    packets_down: null,
  };
}

/** A flow's counters from its payload counts and its sockets, each side's writes counted as given. */
export function trafficOf(
  payload: { up: number; down: number },
  client: Socket,
  remote: Socket,
  tx: { client: number; remote: number },
  span: ClientSpan,
): FlowTraffic {
  return {
    bytes_up: Math.max(0, payload.up),
    bytes_down: Math.max(0, payload.down),
    inbound_rx_bytes: spanCount(span, client.bytesRead, 'rx'),
    inbound_tx_bytes: spanCount(span, tx.client, 'tx'),
    outbound_rx_bytes: remote.bytesRead,
    outbound_tx_bytes: tx.remote,
    packets_up: null,
    packets_down: null,
  };
}

/**
 * What a socket has handed to the kernel: its count of writes less what still waits in
 * it (buffered, or in a write the kernel has not taken yet). A socket counts a write
 * when it is queued, and one destroyed with writes waiting drops them yet goes on
 * counting the one that was under way.
 */
export function handedOver(s: Socket): number {
  return s.bytesWritten - s.writableLength;
}

/** A tunnel's counters (tunnelTraffic), and their freeze when the relay is cut. */
export interface TunnelTraffic {
  read(): FlowTraffic;
  /** Called once the relay is cut, before its sockets are destroyed: the counters read from then on. */
  freeze(): void;
}

/**
 * The counters of a tunnel whose relay starts now (SOCKS5 CONNECT, HTTP CONNECT):
 * bytes_down is what was handed on to the client since (the tunnel's whole answer is
 * relayed payload), bytes_up what was handed on to the remote less the hop handshake,
 * and the two tx counters too count only what was handed over. A download the client
 * stopped reading and then reset had a chunk read from the remote but never passed on
 * (up to 64 KiB), and a write to the client under way: counted from what was read,
 * both were billed as relayed. They are read at the cut, since a destroyed socket
 * drops what waits in it.
 */
export function tunnelTraffic(
  client: Socket,
  remote: Socket,
  handshake: { rx: number; tx: number },
  span: ClientSpan = WHOLE_CONNECTION,
): TunnelTraffic {
  const relayFrom = client.bytesWritten;
  const read = (): FlowTraffic => {
    const tx = { client: handedOver(client), remote: handedOver(remote) };
    return trafficOf({ up: tx.remote - handshake.tx, down: tx.client - relayFrom }, client, remote, tx, span);
  };
  let frozen: FlowTraffic | null = null;
  return {
    read: () => frozen ?? read(),
    freeze: () => void (frozen ??= read()),
  };
}
