import type { Socket } from 'node:net';
import type { FlowTraffic } from '../../streams/contract.js';
import type { TrafficMeter } from './flow-actor.js';

/** Byte counts of a client connection at some point: where one flow's share of it starts. */
export interface ClientMark {
  rx: number;
  tx: number;
}

const START: ClientMark = { rx: 0, tx: 0 };

/**
 * The counters of a flow that ended before it relayed (blocked, failed, cancelled): its
 * client's handshake and answer are all that crossed a boundary.
 */
export function clientOnlyTraffic(client: Socket, clientBase: ClientMark = START): FlowTraffic {
  return {
    bytes_up: 0,
    bytes_down: 0,
    inbound_rx_bytes: client.bytesRead - clientBase.rx,
    inbound_tx_bytes: client.bytesWritten - clientBase.tx,
    outbound_rx_bytes: 0,
    outbound_tx_bytes: 0,
    packets_up: null,
    packets_down: null,
  };
}

/**
 * The counters of a TCP flow, read from its two sockets: bytes_up/bytes_down are the
 * remote side's payload, the outbound's hop handshake left out; the boundary counters
 * are the sockets' own. `clientBase` is where this flow's share of a keep-alive client
 * connection starts.
 */
export function socketTraffic(
  client: Socket,
  remote: Socket,
  handshake: { rx: number; tx: number },
  clientBase: ClientMark = START,
): () => FlowTraffic {
  return () => ({
    bytes_up: Math.max(0, remote.bytesWritten - handshake.tx),
    bytes_down: Math.max(0, remote.bytesRead - handshake.rx),
    inbound_rx_bytes: client.bytesRead - clientBase.rx,
    inbound_tx_bytes: client.bytesWritten - clientBase.tx,
    outbound_rx_bytes: remote.bytesRead,
    outbound_tx_bytes: remote.bytesWritten,
    packets_up: null,
    packets_down: null,
  });
}

/** socketTraffic as a meter whose total is the sum of the four socket counters. */
export function socketMeter(client: Socket, remote: Socket, handshake: { rx: number; tx: number }, clientBase?: ClientMark): TrafficMeter {
  return {
    total: () => client.bytesRead + client.bytesWritten + remote.bytesRead + remote.bytesWritten,
    read: socketTraffic(client, remote, handshake, clientBase),
  };
}
