import { randomBytes } from 'node:crypto';
import { Subject, type Observable } from 'rxjs';
import { SCHEMA_ID, type BusEvent, type Envelope, type FlowRecord, type FlowSnapshotPayload } from './contract.js';
import { EventRing } from './event-ring.js';
import { acceptsType, type TypeFilter } from './type-filter.js';

export interface EventBusOptions {
  /** Events kept for replay (`since`, GET /api/v1/events). */
  ringCapacity: number;
  now?: () => number;
}

/**
 * The merged event stream: gives each event its sequence and envelope, keeps the
 * replay ring and multicasts live envelopes. Publishing is synchronous, so a
 * subscriber that reads `lastSequence` and subscribes in the same tick sees no gap.
 */
export class EventBus {
  /** Random per engine start, so event_id stays unique across restarts. */
  readonly epoch: string;
  private seq = 0;
  private snapshots = 0;
  private readonly ring: EventRing<Envelope>;
  private readonly live = new Subject<Envelope>();
  private readonly now: () => number;
  readonly events$: Observable<Envelope> = this.live.asObservable();

  constructor(opts: EventBusOptions) {
    this.ring = new EventRing<Envelope>(opts.ringCapacity);
    this.now = opts.now ?? Date.now;
    this.epoch = `${this.now().toString(36)}${randomBytes(6).toString('hex')}`;
  }

  get lastSequence(): number {
    return this.seq;
  }

  get oldestSequence(): number | null {
    return this.ring.oldestSequence;
  }

  publish(event: BusEvent): Envelope {
    const sequence = ++this.seq;
    const envelope: Envelope = {
      schema_id: SCHEMA_ID,
      event_id: `${this.epoch}-${sequence}`,
      event_type: event.event_type,
      occurred_at_unix_ms: event.occurred_at_unix_ms ?? this.now(),
      source_id: null,
      sequence,
      principal_key: event.principal_key ?? null,
      labels: {},
      payload: event.payload,
    };
    this.ring.push(envelope);
    this.live.next(envelope);
    return envelope;
  }

  /** Ring events after `since` that pass the filter, oldest first. */
  replay(since: number, filter: TypeFilter, limit = Infinity): Envelope[] {
    return this.ring.after(since, (e) => acceptsType(filter, e.event_type), limit);
  }

  /**
   * The flow.snapshot baseline of one subscription. It is never published: it does
   * not enter the ring and takes no sequence of its own; its sequence is the
   * watermark, so resuming from it neither skips nor repeats an event.
   */
  snapshot(records: FlowRecord[]): Envelope<FlowSnapshotPayload> {
    const watermark = this.seq;
    return {
      schema_id: SCHEMA_ID,
      event_id: `${this.epoch}-s${++this.snapshots}`,
      event_type: 'flow.snapshot',
      occurred_at_unix_ms: this.now(),
      source_id: null,
      sequence: watermark,
      principal_key: null,
      labels: {},
      payload: { watermark, records },
    };
  }

  complete(): void {
    this.live.complete();
  }
}
