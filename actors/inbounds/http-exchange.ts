import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How an open exchange is ended, and cut. */
interface OpenExchange {
  end(): void;
  cut(): void;
}

/** Per client connection: its open exchanges, in the order their requests came. */
const openExchanges = new WeakMap<Socket, Map<ExchangeEnd, OpenExchange>>();

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
  private readonly cutListeners: (() => void)[] = [];

  constructor(
    private readonly res: ServerResponse,
    client: Socket,
  ) {
    this.over = new Promise((resolve) => {
      const exchanges = exchangesOf(client);
      const end = (): void => {
        res.off('close', end);
        exchanges.delete(this);
        this.done = true;
        resolve();
      };
      res.once('close', end);
      exchanges.set(this, { end, cut: () => this.cutListeners.splice(0).forEach((listener) => listener()) });
    });
  }

  /**
   * Runs `listener` at once when the client connection is cut (a reset, or
   * cutConnection) while this exchange is open, before `over`: the connection is
   * destroyed then, and by its close it no longer holds what waited in it to be sent,
   * yet still counts a write that was under way as written. What the client was
   * handed is read here.
   */
  onCut(listener: () => void): void {
    this.cutListeners.push(listener);
  }

  /** Whether `over` has resolved, for a step that must not start after it. */
  get ended(): boolean {
    return this.done;
  }

  /** Whether its request has been read whole (an answer may come before that). */
  get requestRead(): boolean {
    return this.res.req.complete;
  }
}

/**
 * Whether the client connection has exchanges open whose requests were read whole:
 * bytes the parser refuses then belong to a later request, and the answers under way
 * are owed to the client before that request's refusal.
 */
export function answersOwed(client: Socket): Promise<void> | null {
  const open = [...(openExchanges.get(client)?.keys() ?? [])];
  if (open.length === 0 || !open.every((e) => e.requestRead)) return null;
  return Promise.all(open.map((e) => e.over)).then(() => undefined);
}

/** Cuts every open exchange of a client connection the node is about to destroy (onCut). */
export function cutConnection(client: Socket): void {
  openExchanges.get(client)?.forEach((e) => e.cut());
}

function exchangesOf(client: Socket): Map<ExchangeEnd, OpenExchange> {
  let exchanges = openExchanges.get(client);
  if (!exchanges) {
    const open = new Map<ExchangeEnd, OpenExchange>();
    client.once('error', () => cutConnection(client));
    client.once('close', () => open.forEach((e) => e.end()));
    openExchanges.set(client, open);
    exchanges = open;
  }
  return exchanges;
}
