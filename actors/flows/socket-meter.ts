import type { Socket } from 'node:net';
import type { FlowTraffic } from '../../streams/contract.js';
import type { TrafficMeter } from './flow-actor.js';

/** Byte counts of a client connection at some point: where one flow's share of it starts. */
export interface ClientMark {
  rx: number;
  tx: number;
}

/**
 * The counters of a TCP flow, read from its two sockets: bytes_up/bytes_down are the
 * remote side's payload, the outbound's hop handshake left out; the boundary counters
 * are the sockets' own. `clientBase` is where this flow's share of a keep-alive client
 * connection starts.
 */
export function socketMeter(
  client: Socket,
  remote: Socket,
  handshake: { rx: number; tx: number },
  clientBase: ClientMark = { rx: 0, tx: 0 },
): TrafficMeter {
  return {
    total: () => client.bytesRead + client.bytesWritten + remote.bytesRead + remote.bytesWritten,
    read: (): FlowTraffic => ({
      bytes_up: Math.max(0, remote.bytesWritten - handshake.tx),
      bytes_down: Math.max(0, remote.bytesRead - handshake.rx),
      inbound_rx_bytes: client.bytesRead - clientBase.rx,
      inbound_tx_bytes: client.bytesWritten - clientBase.tx,
      outbound_rx_bytes: remote.bytesRead,
      outbound_tx_bytes: remote.bytesWritten,
      packets_up: null,
      packets_down: null,
    }),
  };
}
