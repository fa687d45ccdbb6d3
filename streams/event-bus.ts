import { randomBytes } from 'node:crypto';
import { Subject, type Observable } from 'rxjs';
import { SCHEMA_ID, type BusEvent, type FlowRecord, type FlowSnapshotPayload } from './contract.js';
import { EventRing } from './event-ring.js';
import { PublishedEvent } from './published-event.js';
import { joinSlices, recordSlices } from './records-json.js';
import { acceptsType, type TypeFilter } from './type-filter.js';

export interface EventBusOptions {
  /** Events kept for replay (`since`, GET /api/v1/events). */
  ringCapacity: number;
  /** Bytes of envelope JSON kept for replay at most, allocated up front. */
  ringMaxBytes: number;
  now?: () => number;
  /** The first event's sequence: sequences go on across engine starts. @defaultValue 1 */
  firstSequence?: number;
}

/** Sequences from and through (both included), as a replay gap names them. */
export interface SequenceRange {
  from_sequence: number;
  to_sequence: number;
}

/**
 * The merged event stream: gives each event its sequence and envelope, serializes it
 * once, keeps the replay ring and multicasts live events. Publishing is synchronous,
 * so a subscriber that reads `lastSequence` and subscribes in the same tick sees no gap.
 */
export class EventBus {
  /** Random per engine start, so event_id stays unique across restarts. */
  readonly epoch: string;
  private seq = 0;
  private snapshots = 0;
  private readonly ring: EventRing;
  private readonly live = new Subject<PublishedEvent>();
  private readonly now: () => number;
  readonly events$: Observable<PublishedEvent> = this.live.asObservable();

  constructor(opts: EventBusOptions) {
    this.ring = new EventRing({ capacity: opts.ringCapacity, maxBytes: opts.ringMaxBytes });
    this.now = opts.now ?? Date.now;
    this.seq = (opts.firstSequence ?? 1) - 1;
    this.epoch = `${this.now().toString(36)}${randomBytes(6).toString('hex')}`;
  }

  get lastSequence(): number {
    return this.seq;
  }

  get oldestSequence(): number | null {
    return this.ring.oldestSequence;
  }

  publish<P extends object>(event: BusEvent<P>): PublishedEvent<P> {
    const sequence = ++this.seq;
    const published = PublishedEvent.of<P>({
      schema_id: SCHEMA_ID,
      event_id: `${this.epoch}-${sequence}`,
      event_type: event.event_type,
      occurred_at_unix_ms: event.occurred_at_unix_ms ?? this.now(),
      source_id: null,
      sequence,
      principal_key: event.principal_key ?? null,
      labels: {},
      payload: event.payload,
    }, event.writePayload);
    this.ring.push(published);
    this.live.next(published);
    return published;
  }

  /** Ring events after `since` that pass the filter, oldest first. */
  replay(since: number, filter: TypeFilter, limit = Infinity): PublishedEvent[] {
    return this.ring.after(since, (type) => acceptsType(filter, type), limit);
  }

  /**
   * The sequences after `since` that have left the ring, so replay cannot return them;
   * null when the ring still holds every one. Those before this run's first sequence
   * were an earlier run's, or skipped by a kill -9 (SequenceReservation).
   */
  lostAfter(since: number): SequenceRange | null {
    const held = this.ring.oldestSequence ?? this.seq + 1;
    return held > since + 1 ? { from_sequence: since + 1, to_sequence: held - 1 } : null;
  }

  /**
   * replay's envelopes (source_id null) as UTF-8 views into the ring, not decoded: the
   * caller copies them out before the ring moves on (in the same tick).
   */
  replayBytes(since: number, filter: TypeFilter, limit = Infinity): Buffer[] {
    return this.ring.bytesAfter(since, (type) => acceptsType(filter, type), limit);
  }

  /**
   * The flow.snapshot baseline of one subscription. It is never published: it does
   * not enter the ring and takes no sequence of its own; its sequence is the
   * watermark, so resuming from it neither skips nor repeats an event. The watermark
   * and time are read at the call, with `records` taken in the same tick; the records
   * are then serialized a slice at a time (recordSlices). Null when `stopped` said so
   * before the end.
   */
  async snapshot(records: readonly FlowRecord[], stopped = (): boolean => false): Promise<PublishedEvent<FlowSnapshotPayload> | null> {
    const watermark = this.seq;
    const event_id = `${this.epoch}-s${++this.snapshots}`;
    const occurred_at_unix_ms = this.now();
    const json = await joinSlices(recordSlices(records, stopped));
    if (stopped()) return null;
    return PublishedEvent.of<FlowSnapshotPayload>(
      {
        schema_id: SCHEMA_ID,
        event_id,
        event_type: 'flow.snapshot',
        occurred_at_unix_ms,
        source_id: null,
        sequence: watermark,
        principal_key: null,
        labels: {},
        // Its JSON, made a slice at a time, is the text below.
        payload: { watermark, records },
      },
      `{"watermark":${watermark},"records":${json}}`,
    );
  }

  complete(): void {
    this.live.complete();
  }
}
