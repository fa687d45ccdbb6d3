import type { Observable, Subscription } from 'rxjs';
import type { BusEvent } from '../../streams/contract.js';
import { coalesce } from '../../streams/coalesce.js';
import type { PublishedEvent } from '../../streams/published-event.js';
import { filterTypes, typeFilter } from '../../streams/type-filter.js';
import type { Outbox, OutboxAppend } from '../contracts/outbox.js';

export interface DispatcherOptions {
  sink: string;
  nodeId: string;
  events: readonly string[] | undefined;
  outbox: Outbox;
  /** engine.warning goes here, once per episode of lost writes. */
  publish: (event: BusEvent) => void;
  /** Envelopes waiting for the outbox beyond this many are counted as a gap. @defaultValue 100000 */
  maxQueued?: number;
  /** Window in ms that groups envelopes into one append. @defaultValue 10 */
  batchMs?: number;
}

/**
 * Takes one sink's filtered envelopes from the bus and appends them to its outbox in
 * order, one append at a time. What the outbox refuses (disk protection, store down)
 * or what overflows the bounded queue is recorded as a replay gap: one per contiguous
 * missed range, and one engine.warning per episode.
 */
export class OutboxDispatcher {
  private subscription: Subscription | null = null;
  private queue: OutboxAppend[][] = [];
  private queued = 0;
  private running: Promise<void> | null = null;
  /** True while the last thing that happened to this sink's events was a miss. */
  private missing = false;
  private warned = false;
  /** source_id as every body carries it, serialized once. */
  private readonly nodeIdJson: string;

  constructor(private readonly opts: DispatcherOptions) {
    this.nodeIdJson = JSON.stringify(opts.nodeId);
  }

  start(events$: Observable<PublishedEvent>): void {
    this.subscription = events$
      .pipe(filterTypes(typeFilter(this.opts.events)), coalesce(this.opts.batchMs ?? 10))
      .subscribe((batch) => this.enqueue(batch));
  }

  /** Stops taking events and waits until what was taken reached the outbox (or a gap). */
  async stop(): Promise<void> {
    this.subscription?.unsubscribe();
    while (this.running) await this.running;
  }

  private enqueue(batch: PublishedEvent[]): void {
    // Checked before serializing: an overflowing batch is only a gap, its bodies are never written.
    if (this.queued + batch.length > (this.opts.maxQueued ?? 100_000)) {
      void this.miss(batch, 'the outbox queue is full');
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
        await this.miss(entries, err instanceof Error ? err.message : String(err));
      }
    }
    this.running = null;
  }

  private async miss(entries: readonly { sequence: number }[], why: string): Promise<void> {
    const first = entries[0];
    const last = entries[entries.length - 1];
    if (!first || !last) return;
    const continuesLast = this.missing;
    this.missing = true;
    if (!this.warned) {
      this.warned = true;
      this.opts.publish({
        event_type: 'engine.warning',
        payload: {
          code: 'outbox_write_blocked',
          message: `sink "${this.opts.sink}": events from sequence ${first.sequence} were not kept (${why}); counted in replay_gaps`,
        },
      });
    }
    await this.opts.outbox
      .recordGap({ from_sequence: first.sequence, to_sequence: last.sequence, at_unix_ms: Date.now() }, continuesLast)
      .catch(() => undefined);
  }
}
