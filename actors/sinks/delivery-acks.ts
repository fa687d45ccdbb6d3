import type { OutboxAppend } from '../contracts/outbox.js';

/** Told of each request a receiver acknowledged: the sink, the events it carried, and when. */
export type AckListener = (sink: string, events: readonly OutboxAppend[], ackedAtUnixMs: number) => void;

/**
 * Where the node's sinks tell of their acknowledged deliveries, once per request, for
 * whoever measures them (the delivery latency metric). No listener: nothing is done.
 */
export class DeliveryAcks {
  private readonly listeners = new Set<AckListener>();

  /** Adds `listener`; returns what removes it. */
  listen(listener: AckListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  tell(sink: string, events: readonly OutboxAppend[]): void {
    if (this.listeners.size === 0) return;
    const at = Date.now();
    for (const listener of this.listeners) listener(sink, events, at);
  }
}
