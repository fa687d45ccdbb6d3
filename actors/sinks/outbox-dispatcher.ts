import { Subject, takeUntil } from 'rxjs';
import type { BusEvent } from '../../streams/contract.js';
import { coalesce } from '../../streams/coalesce.js';
import type { EventBus } from '../../streams/event-bus.js';
import type { PublishedEvent } from '../../streams/published-event.js';
import { sinkEvents } from '../../streams/subscription.js';
import type { Outbox, OutboxAppend, ReplayGap } from '../contracts/outbox.js';

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
 * Takes one sink's filtered envelopes from the bus and appends them to its outbox in
 * order, one append at a time. What the outbox refuses (disk protection, store down),
 * what overflows the bounded queue, or what left the replay ring before a `since`
 * start could take it is recorded as a replay gap: one per contiguous missed range,
 * and one engine.warning per episode.
 */
export class OutboxDispatcher {
  private readonly stopping = new Subject<void>();
  private queue: OutboxAppend[][] = [];
  private queued = 0;
  private running: Promise<void> | null = null;
  /** Gap records not written yet: stop waits for them, so the outbox is not closed under them. */
  private gapWrites: Promise<unknown> = Promise.resolve();
  /** True while the last thing that happened to this sink's events was a miss. */
  private missing = false;
  private warned = false;
  /** source_id as every body carries it, serialized once. */
  private readonly nodeIdJson: string;

  constructor(private readonly opts: DispatcherOptions) {
    this.nodeIdJson = JSON.stringify(opts.nodeId);
  }

  /** Takes live events; with `since`, first those after it that the ring still holds. */
  start(since?: number): void {
    const { lost, events$ } = sinkEvents(this.opts.bus, this.opts.events, since);
    if (lost) this.noteMiss(lost, 'replay_ring_overrun', 'they had left the replay ring when the sink started');
    events$
      .pipe(takeUntil(this.stopping), coalesce(this.opts.batchMs ?? 10))
      .subscribe((batch) => this.enqueue(batch));
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
    await this.gapWrites;
    return through;
  }

  private enqueue(batch: PublishedEvent[]): void {
    // Checked before serializing: an overflowing batch is only a gap, its bodies are never written.
    if (this.queued + batch.length > (this.opts.maxQueued ?? 100_000)) {
      this.noteMiss(rangeOf(batch), 'outbox_write_blocked', 'the outbox queue is full');
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
    for (let entries = this.queue.shift(); entries; entries = this.queue.shift()) {
      this.queued -= entries.length;
      try {
        await this.opts.outbox.append(entries);
        this.missing = false;
        this.warned = false;
      } catch (err) {
        await this.miss(rangeOf(entries), 'outbox_write_blocked', err instanceof Error ? err.message : String(err));
      }
    }
    this.running = null;
  }

  private noteMiss(range: SequenceRange, code: string, why: string): void {
    this.gapWrites = Promise.all([this.gapWrites, this.miss(range, code, why)]);
  }

  private async miss(range: SequenceRange, code: string, why: string): Promise<void> {
    const continuesLast = this.missing;
    this.missing = true;
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
    await this.opts.outbox.recordGap({ ...range, at_unix_ms: Date.now() }, continuesLast).catch(() => undefined);
  }
}

/** The sequences a batch spans; batches are never empty. */
function rangeOf(entries: readonly { sequence: number }[]): SequenceRange {
  return { from_sequence: entries[0]!.sequence, to_sequence: entries[entries.length - 1]!.sequence };
}
