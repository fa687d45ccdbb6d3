import { Subject, takeUntil, tap } from 'rxjs';
import type { BusEvent } from '../../streams/contract.js';
import { coalesce } from '../../streams/coalesce.js';
import type { EventBus } from '../../streams/event-bus.js';
import type { PublishedEvent } from '../../streams/published-event.js';
import { sinkEvents } from '../../streams/subscription.js';
import type { Outbox, OutboxAppend, ReplayGap } from '../contracts/outbox.js';
import { KeptMark } from './kept-mark.js';

export interface DispatcherOptions {
  sink: string;
  nodeId: string;
  events: readonly string[] | undefined;
  bus: EventBus;
  outbox: Outbox;
  /** engine.warning goes here, once per episode of lost writes. */
  publish: (event: BusEvent) => void;
  /** Envelopes waiting for the outbox beyond this many are counted as a gap. @defaultValue 100000 */
  maxQueued?: number;
  /** Window in ms that groups envelopes into one append. @defaultValue 10 */
  batchMs?: number;
}

type SequenceRange = Pick<ReplayGap, 'from_sequence' | 'to_sequence'>;

/**
 * Entries per outbox append at most: a sink that starts with a long replay from the
 * ring (up to its capacity) writes it in parts, not as one transaction or pipeline.
 */
const APPEND_MAX = 1000;

/** A range noted as missed, waiting in the queue at its place among the appends. */
interface Missed {
  missed: SequenceRange;
  /** What it settles of KeptMark's taken count once recorded. */
  count: number;
}

/**
 * Takes one sink's filtered envelopes from the bus and appends them to its outbox in
 * order, one append at a time. What the outbox refuses (disk protection, store down),
 * what overflows the bounded queue, or what left the replay ring before a `since`
 * start could take it is recorded as a replay gap: one per contiguous missed range,
 * and one engine.warning per episode. A miss is warned of when it happens and recorded
 * in its place in the queue, so ranges are recorded in sequence order and one that
 * follows a kept batch is never merged into the range before it.
 */
export class OutboxDispatcher {
  private readonly stopping = new Subject<void>();
  private queue: (OutboxAppend[] | Missed)[] = [];
  /** Entries in the queue (missed ranges hold none). */
  private queued = 0;
  private running: Promise<void> | null = null;
  /** True while the last range the drain recorded was missed. */
  private missing = false;
  private warned = false;
  /** source_id as every body carries it, serialized once. */
  private readonly nodeIdJson: string;
  private kept: KeptMark | null = null;

  constructor(private readonly opts: DispatcherOptions) {
    this.nodeIdJson = JSON.stringify(opts.nodeId);
  }

  /** Takes live events; with `since`, first those after it that the ring still holds. */
  start(since?: number): void {
    const { gap, events$ } = sinkEvents(this.opts.bus, this.opts.events, since);
    const kept = new KeptMark(since ?? this.opts.bus.lastSequence);
    this.kept = kept;
    if (gap) {
      kept.took();
      this.noteMiss(gap, 'replay_ring_overrun', 'they had left the replay ring when the sink started', 1);
    }
    events$
      .pipe(
        // Before takeUntil: once stopping, nothing more is taken, and coalesce hands over what was.
        tap(() => kept.took()),
        takeUntil(this.stopping),
        coalesce(this.opts.batchMs ?? 10),
      )
      .subscribe((batch) => this.enqueue(batch));
  }

  /**
   * An event is kept once its append to the outbox resolved, or once the range it was
   * missed in is recorded. Before start() nothing is taken, so nothing can be lost.
   */
  keptThrough(lastSequence: number): number {
    return this.kept ? this.kept.checkpoint(lastSequence) : lastSequence;
  }

  /**
   * Stops taking events at once and waits until everything taken reached the outbox
   * (or a gap). Resolves with the bus sequence it took events through.
   */
  async stop(): Promise<number> {
    const through = this.opts.bus.lastSequence;
    // Completing the stream, not unsubscribing it, makes coalesce hand over its open window.
    this.stopping.next();
    while (this.running) await this.running;
    return through;
  }

  private enqueue(batch: PublishedEvent[]): void {
    if (batch.length <= APPEND_MAX) return this.enqueuePart(batch);
    for (let from = 0; from < batch.length; from += APPEND_MAX) this.enqueuePart(batch.slice(from, from + APPEND_MAX));
  }

  private enqueuePart(batch: PublishedEvent[]): void {
    // Checked before serializing: an overflowing batch is only a gap, its bodies are never written.
    if (this.queued + batch.length > (this.opts.maxQueued ?? 100_000)) {
      this.noteMiss(rangeOf(batch), 'outbox_write_blocked', 'the outbox queue is full', batch.length);
      return;
    }
    const entries = batch.map((e) => ({
      id: e.event_id,
      sequence: e.sequence,
      body: e.withSource(this.nodeIdJson),
    }));
    this.queue.push(entries);
    this.queued += entries.length;
    this.running ??= this.drain();
  }

  private async drain(): Promise<void> {
    for (let item = this.queue.shift(); item; item = this.queue.shift()) {
      if (!Array.isArray(item)) {
        await this.record(item.missed);
        this.settle(item.count);
        continue;
      }
      // Windows that queued up while the last append committed go out in one append.
      const windows = [item];
      let size = item.length;
      for (let next = this.queue[0]; Array.isArray(next) && size + next.length <= APPEND_MAX; next = this.queue[0]) {
        windows.push(next);
        size += next.length;
        this.queue.shift();
      }
      if (windows.length > 1) item = windows.flat();
      this.queued -= item.length;
      try {
        await this.opts.outbox.append(item);
        this.missing = false;
        this.warned = false;
      } catch (err) {
        const range = rangeOf(item);
        this.warn(range, 'outbox_write_blocked', err instanceof Error ? err.message : String(err));
        await this.record(range);
      }
      this.settle(item.length);
    }
    this.running = null;
  }

  /** A miss noticed outside the drain: warned of now, recorded after what is queued before it. */
  private noteMiss(range: SequenceRange, code: string, why: string, count: number): void {
    this.warn(range, code, why);
    const last = this.queue.at(-1);
    // Nothing was queued since the last noted miss: this one continues it.
    if (last && !Array.isArray(last)) {
      last.missed.to_sequence = range.to_sequence;
      last.count += count;
    } else this.queue.push({ missed: { ...range }, count });
    this.running ??= this.drain();
  }

  private warn(range: SequenceRange, code: string, why: string): void {
    if (!this.warned) {
      this.warned = true;
      this.opts.publish({
        event_type: 'engine.warning',
        payload: {
          code,
          message: `sink "${this.opts.sink}": events from sequence ${range.from_sequence} were not kept (${why}); counted in replay_gaps`,
        },
      });
    }
  }

  private settle(count: number): void {
    this.kept?.settle(count);
  }

  private async record(range: SequenceRange): Promise<void> {
    const continuesLast = this.missing;
    this.missing = true;
    await this.opts.outbox.recordGap({ ...range, at_unix_ms: Date.now() }, continuesLast).catch(() => undefined);
  }
}

/** The sequences a batch spans; batches are never empty. */
function rangeOf(entries: readonly { sequence: number }[]): SequenceRange {
  return { from_sequence: entries[0]!.sequence, to_sequence: entries[entries.length - 1]!.sequence };
}
