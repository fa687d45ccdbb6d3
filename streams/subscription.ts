import { Observable, filter } from 'rxjs';
import type { Envelope, FlowRecord } from './contract.js';
import type { EventBus } from './event-bus.js';
import { filterTypes, wantsFlowEvents, type TypeFilter } from './type-filter.js';

export interface SubscriptionOptions {
  filter: TypeFilter;
  /** Replay ring events with a greater sequence first (SSE `since` / Last-Event-ID). */
  since?: number | null;
}

/**
 * One live subscription: replay after `since`, then the flow.snapshot baseline (when
 * the filter includes flow types), then live events after the watermark. All three
 * are read in one synchronous step, so the join has no gap and no duplicate.
 */
export function subscribeEvents(
  bus: EventBus,
  activeRecords: () => FlowRecord[],
  opts: SubscriptionOptions,
): Observable<Envelope> {
  return new Observable<Envelope>((subscriber) => {
    if (opts.since !== undefined && opts.since !== null) {
      for (const e of bus.replay(opts.since, opts.filter)) subscriber.next(e);
    }
    if (wantsFlowEvents(opts.filter)) subscriber.next(bus.snapshot(activeRecords()));
    const watermark = bus.lastSequence;
    return bus.events$
      .pipe(
        filter((e) => e.sequence > watermark),
        filterTypes(opts.filter),
      )
      .subscribe(subscriber);
  });
}
