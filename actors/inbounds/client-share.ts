import type { Socket } from 'node:net';
import { handedOver, type ClientMark, type ClientSpan } from '../flows/socket-meter.js';

/** Where a request's share of a client connection ends; null until it has. */
interface EndMark {
  mark: ClientMark | null;
}

/**
 * The end of the last request on each keep-alive HTTP client connection: where the
 * next request's share starts, so each flow counts the client bytes of its own
 * exchange, request head included (Node's parser has read the head before the request
 * event), and a CONNECT after plain requests counts only its own.
 */
const lastEnds = new WeakMap<Socket, EndMark>();
const FIRST: EndMark = { mark: { rx: 0, tx: 0 } };

export interface ClientShare {
  span: ClientSpan;
  /**
   * Marks the end of this request's share (the first call counts). What the client
   * was sent counts as far as it was handed to the kernel: all of it once the answer
   * finished, what left before the cut of one cut short.
   */
  ended(): void;
}

/**
 * A request's share of its client connection: from the mark its predecessor fills in
 * when it ends to the one `ended` fills in for the request after it. Node answers
 * pipelined requests in order and writes a queued answer only once the one ahead of it
 * has finished, so these marks never go back; a flow whose predecessor has not ended
 * has no byte of its own on the wire yet and counts none, and a flow that ended counts
 * none of what came after its end (the answer queued behind it, written out as its own
 * finished, before its close). The client's requests reach the parser in whatever
 * chunks they came, so a pipelined request read with the one before it counts there.
 */
export function clientShare(client: Socket): ClientShare {
  const before = lastEnds.get(client) ?? FIRST;
  const own: EndMark = { mark: null };
  lastEnds.set(client, own);
  return {
    span: { from: () => before.mark, to: () => own.mark },
    ended: () => {
      own.mark ??= { rx: client.bytesRead, tx: handedOver(client) };
    },
  };
}
