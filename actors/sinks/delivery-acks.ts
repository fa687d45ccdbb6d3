import { Subject } from 'rxjs';
import type { OutboxAppend } from '../contracts/outbox.js';

/** One request a sink's receiver acknowledged: the sink, the events it carried, and when. */
export interface DeliveryAck {
  sink: string;
  events: readonly OutboxAppend[];
  acked_at_unix_ms: number;
}

/**
 * Where the node's sinks tell of their acknowledged deliveries, once per request, for
 * whoever measures them (the delivery latency metric).
 */
export type DeliveryAcks = Subject<DeliveryAck>;

/** Tells `acks` of one acknowledged request; nothing is built while no one listens. */
export function tellAck(acks: DeliveryAcks, sink: string, events: readonly OutboxAppend[]): void {
  if (acks.observed) acks.next({ sink, events, acked_at_unix_ms: Date.now() });
}
