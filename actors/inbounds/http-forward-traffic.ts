import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FlowTraffic } from '../../streams/contract.js';
import type { TrafficMeter } from '../flows/flow-actor.js';
import { handedOver, trafficOf, type ClientSpan } from '../flows/socket-meter.js';

/** A forwarded request's counters (forwardTraffic): told of its answer, frozen when its exchange is cut. */
export interface ForwardTraffic extends TrafficMeter {
  /** The origin's answer, as its relay starts. */
  answering(answer: IncomingMessage): void;
  /** Called once the exchange ends or fails, before the upstream is destroyed: the payload counts read from then on. */
  freeze(): void;
}

/**
 * The counters of a plain forwarded request. bytes_down is what the origin sent (status
 * line, headers, body) less what of its answer the node read and has not passed on:
 * what waits unparsed in the upstream socket and unread in the answer (the relay
 * pauses both while the client does not take the answer) and, when the exchange is
 * cut before the answer was all written out, its bytes still waiting for the client
 * (in the response, or in the client socket's queue). bytes_up, and
 * outbound_tx_bytes, are what was handed to the kernel for the origin: an origin that
 * stops reading an upload leaves the rest queued in the node, dropped with the
 * connection. A download the client stopped reading and then reset, or an upload
 * refused early, was billed with all of it. The inbound counters are the flow's span
 * of the client connection.
 */
export function forwardTraffic(
  client: Socket,
  remote: Socket,
  handshake: { rx: number; tx: number },
  span: ClientSpan,
  res: ServerResponse,
): ForwardTraffic {
  let answer: IncomingMessage | null = null;
  let frozen: { up: number; down: number; remoteTx: number } | null = null;
  const payload = (held: number): { up: number; down: number; remoteTx: number } => {
    const remoteTx = handedOver(remote);
    const unread = remote.readableLength + (answer?.readableLength ?? 0);
    const down = remote.bytesRead - handshake.rx - unread - held;
    return { up: remoteTx - handshake.tx, down, remoteTx };
  };
  return {
    total: () => client.bytesRead + client.bytesWritten + remote.bytesRead + remote.bytesWritten,
    read: (): FlowTraffic => {
      const p = frozen ?? payload(0);
      return trafficOf(p, client, remote, { client: client.bytesWritten, remote: p.remoteTx }, span);
    },
    answering: (a) => void (answer = a),
    freeze: () => void (frozen ??= payload(heldForClient(res, client, span))),
  };
}

/**
 * The answer's bytes still waiting for the client: none once it was all written out
 * (it is delivered as a finished answer), all the response holds while it waits its
 * turn behind another (it has no socket yet), else its part of the client socket's queue.
 */
function heldForClient(res: ServerResponse, client: Socket, span: ClientSpan): number {
  if (res.writableFinished) return 0;
  if (res.socket !== client) return res.writableLength;
  const from = span.from();
  const written = from ? client.bytesWritten - from.tx : 0;
  return Math.max(0, Math.min(client.writableLength, written));
}
