import { Observable } from 'rxjs';
import type { FlowRecord } from './contract.js';
import type { EventBus, SequenceRange } from './event-bus.js';
import type { PublishedEvent } from './published-event.js';
import { filterTypes, typeFilter, wantsFlowEvents, type TypeFilter } from './type-filter.js';

export interface SubscriptionOptions {
  filter: TypeFilter;
  /** Replay ring events with a greater sequence first (SSE `since` / Last-Event-ID). */
  since?: number | null;
}

/**
 * One live subscription: replay after `since`, then the flow.snapshot baseline (when
 * the filter includes flow types and `activeRecords` is given: sinks pass null, the
 * contract keeps flow.snapshot out of them), then live events after the watermark.
 * The baseline's records and watermark are read in one synchronous step and live
 * events are listened to from then on, queued until the baseline is delivered: it is
 * serialized a slice at a time (a large table would hold the event loop), and the
 * join has no gap and no duplicate, even when a consumer's own reaction to the
 * baseline publishes: such events queue behind it too.
 */
function subscribeEvents(
  bus: EventBus,
  activeRecords: (() => readonly FlowRecord[]) | null,
  opts: SubscriptionOptions,
): Observable<PublishedEvent> {
  return new Observable<PublishedEvent>((subscriber) => {
    const replayed = opts.since !== undefined && opts.since !== null ? bus.replay(opts.since, opts.filter) : [];
    const snapshot = activeRecords && wantsFlowEvents(opts.filter) ? bus.snapshot(activeRecords(), () => subscriber.closed) : null;
    let backlog: (() => void)[] | null = [];
    // Publishing is synchronous: what the bus emits from here on comes after everything
    // in `replayed` and after the baseline's watermark, so no sequence check is needed.
    const live = bus.events$
      .pipe(filterTypes(opts.filter))
      .subscribe({
        next: (e) => (backlog ? backlog.push(() => subscriber.next(e)) : subscriber.next(e)),
        error: (err: unknown) => (backlog ? backlog.push(() => subscriber.error(err)) : subscriber.error(err)),
        complete: () => (backlog ? backlog.push(() => subscriber.complete()) : subscriber.complete()),
      });
    const goLive = (): void => {
      // The backlog may grow while it drains; the index loop picks those up too.
      for (let i = 0; i < backlog!.length; i++) backlog![i]!();
      backlog = null;
    };
    for (const e of replayed) subscriber.next(e);
    if (!snapshot) goLive();
    else {
      snapshot.then(
        (baseline) => {
          if (!baseline) return;
          subscriber.next(baseline);
          goLive();
        },
        (err: unknown) => subscriber.error(err),
      );
    }
    return live;
  });
}

/** A subscription's events, and the sequences after its `since` that replay cannot give. */
export interface ResumedEvents {
  /**
   * The range after the resume point that had left the ring already, lost to this
   * subscriber (a replay gap; with a type filter, some of it may hold none of its types);
   * null without `since` or when the ring still holds every event after it. Read in
   * the call, so `events$` must be subscribed in the same tick for the two to agree.
   */
  gap: SequenceRange | null;
  events$: Observable<PublishedEvent>;
}

/**
 * A subscription that resumes after `opts.since`: where it goes on is settled once,
 * here, and the range the ring no longer holds is taken from that same point.
 */
export function resumeEvents(bus: EventBus, activeRecords: (() => readonly FlowRecord[]) | null, opts: SubscriptionOptions): ResumedEvents {
  const since = opts.since === undefined || opts.since === null ? null : resumeFrom(bus, opts.since);
  return {
    gap: since === null ? null : bus.lostAfter(since),
    events$: subscribeEvents(bus, activeRecords, { filter: opts.filter, since }),
  };
}

/**
 * Where a resume goes on. Sequences go on across engine starts, unless the state dir
 * that keeps them was lost: then a `since` beyond the last one was read in an earlier
 * run (an EventSource reconnecting after a restart), and it resumes from this run's
 * start rather than skipping to events it has not seen yet.
 */
export function resumeFrom(bus: EventBus, since: number): number {
  return since > bus.lastSequence ? 0 : since;
}

/**
 * The events of a sink of `types`: live ones, or with `since` (where the sink it
 * replaces stopped) first those after it that the ring still holds; the gap is a
 * replay gap of the sink. Sinks get no flow.snapshot.
 */
export function sinkEvents(bus: EventBus, types: readonly string[] | undefined, since: number | undefined): ResumedEvents {
  return resumeEvents(bus, null, { filter: typeFilter(types), since: since ?? null });
}
