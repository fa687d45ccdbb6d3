import type { Socket } from 'node:net';
import type { TrafficMeter } from '../flows/flow-actor.js';
import type { FlowTraffic } from '../../streams/contract.js';

/** Why a datagram from the client side was not relayed. */
export interface UdpDrops {
  /** FRAG ≠ 0: weir does not reassemble (RFC 1928 makes it optional). */
  fragments: number;
  /** Too short, unknown address type, empty domain. */
  malformed: number;
  /** Sent to the relay port from an address other than the client's. */
  foreign: number;
  /** Arrived while the upstream was being set up and the wait queue was full. */
  overflow: number;
}

/**
 * One association's counters: plain numbers bumped per datagram, read by the 1 s
 * sampler through `traffic`. bytes_* count payload only (no SOCKS UDP header); the
 * boundary counters count what crossed each socket, SOCKS headers and the TCP control
 * connections (client's and hop's) included, as for TCP flows.
 */
export class UdpCounters {
  packetsUp = 0;
  packetsDown = 0;
  bytesUp = 0;
  bytesDown = 0;
  /** Datagram bytes received from / sent to the client. */
  clientRx = 0;
  clientTx = 0;
  /** Datagram bytes received from / sent to the upstream (remote or hop relay). */
  upstreamRx = 0;
  upstreamTx = 0;
  readonly drops: UdpDrops = { fragments: 0, malformed: 0, foreign: 0, overflow: 0 };

  /** The flow's meter: datagram counters plus the TCP control connections. */
  meter(control: Socket, upstreamControl: Socket | null): TrafficMeter {
    return {
      total: () =>
        this.packetsUp + this.packetsDown + this.clientRx + this.clientTx + this.upstreamRx + this.upstreamTx +
        control.bytesRead + control.bytesWritten + (upstreamControl?.bytesRead ?? 0) + (upstreamControl?.bytesWritten ?? 0),
      read: () => this.traffic(control, upstreamControl),
    };
  }

  traffic(control: Socket, upstreamControl: Socket | null): FlowTraffic {
    return {
      bytes_up: this.bytesUp,
      bytes_down: this.bytesDown,
      inbound_rx_bytes: this.clientRx + control.bytesRead,
      inbound_tx_bytes: this.clientTx + control.bytesWritten,
      outbound_rx_bytes: this.upstreamRx + (upstreamControl?.bytesRead ?? 0),
      outbound_tx_bytes: this.upstreamTx + (upstreamControl?.bytesWritten ?? 0),
      packets_up: this.packetsUp,
      packets_down: this.packetsDown,
    };
  }
}
