import type { Socket } from 'node:net';
import type { ClientMark } from '../flows/socket-meter.js';

/**
 * Where the next request's share of a keep-alive HTTP client connection starts: the
 * end of the request before it, so each flow counts the client bytes of its own
 * exchange, request head included (Node's parser has read the head before the request
 * event), and a CONNECT after plain requests counts only its own.
 */
const clientTails = new WeakMap<Socket, ClientMark>();

/**
 * A request's share of its client connection: it starts at the mark its predecessor
 * fills in when it ends, and `ended` fills in its own for the request after it (the
 * first call counts). A pipelining client sends a request before the answer to the one
 * before is done (Node answers them in order): its start is read from the shared mark
 * when its counters are read, so no byte counts in two flows; a sample taken before its
 * predecessor ended counts from the older mark.
 */
export function clientShare(client: Socket): { base: ClientMark; ended: () => void } {
  const base = clientTails.get(client) ?? { rx: 0, tx: 0 };
  const tail = { rx: base.rx, tx: base.tx };
  clientTails.set(client, tail);
  let marked = false;
  return {
    base,
    ended: () => {
      if (marked) return;
      marked = true;
      tail.rx = client.bytesRead;
      tail.tx = client.bytesWritten;
    },
  };
}
