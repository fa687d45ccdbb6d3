import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Per client connection: the ends of its open exchanges, in the order their requests came. */
const openExchanges = new WeakMap<Socket, Set<() => void>>();

/**
 * The end of one request's exchange on a client connection: its response closed, or
 * the connection did. Node queues the response of a pipelined request, with no socket,
 * behind the ones before it, and never closes a queued response when the connection
 * goes: the connection's own close is the only sign it will never be sent.
 *
 * Listened for from the request's arrival, so a client that leaves while the flow
 * opens is seen. `over` resolves exactly once. The exchanges of a connection that
 * closes end in the order their requests came, which is the order the client byte
 * counts are handed from one request to the next (client-share.ts); one listener per
 * connection does it, however many requests a client pipelines.
 */
export class ExchangeEnd {
  readonly over: Promise<void>;
  private done = false;

  constructor(res: ServerResponse, client: Socket) {
    this.over = new Promise((resolve) => {
      const exchanges = exchangesOf(client);
      const end = (): void => {
        res.off('close', end);
        exchanges.delete(end);
        this.done = true;
        resolve();
      };
      res.once('close', end);
      exchanges.add(end);
    });
  }

  /** Whether `over` has resolved, for a step that must not start after it. */
  get ended(): boolean {
    return this.done;
  }
}

function exchangesOf(client: Socket): Set<() => void> {
  let exchanges = openExchanges.get(client);
  if (!exchanges) {
    const ends = new Set<() => void>();
    client.once('close', () => ends.forEach((end) => end()));
    openExchanges.set(client, ends);
    exchanges = ends;
  }
  return exchanges;
}
