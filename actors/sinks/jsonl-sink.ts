import type { Subscription } from 'rxjs';
import type { EventBus } from '../../streams/event-bus.js';
import { sinkEvents } from '../../streams/subscription.js';
import type { JsonlSinkConfig } from '../config/schema.js';
import type { ReplayGap } from '../contracts/outbox.js';
import type { ConnectorState, Sink } from '../contracts/sink.js';
import { JsonlWriter } from './jsonl-writer.js';
import { KeptMark } from './kept-mark.js';

/**
 * Appends the sink's filtered envelopes to a JSONL file with the node id as
 * source_id. flow.snapshot never reaches it: the bus does not carry snapshots. Its
 * counters go on from the state the node last saved of it (`previous`), as a Webhook
 * sink's do from its outbox: replay_gaps in particular is not cleared by a restart.
 */
export class JsonlSink implements Sink {
  readonly type = 'jsonl';
  private readonly writer: JsonlWriter;
  private subscription: Subscription | null = null;
  /** Ranges that had left the replay ring when a `since` start came for them, and earlier runs' missed ones. */
  private lostRanges = 0;
  private kept: KeptMark | null = null;
  /** The writer's dropped lines as of the last time its queue was empty. */
  private droppedSettled = 0;

  constructor(
    private readonly config: JsonlSinkConfig,
    private readonly nodeId: string,
    private readonly bus: EventBus,
    private readonly previous?: ConnectorState,
  ) {
    this.writer = new JsonlWriter({
      path: config.path,
      maxBytes: config.max_bytes,
      keepFiles: config.keep_files,
      fsyncIntervalMs: config.fsync_interval_ms,
    });
  }

  get tag(): string {
    return this.config.tag;
  }

  async start(since?: number, missed: readonly ReplayGap[] = []): Promise<void> {
    await this.writer.open();
    const nodeIdJson = JSON.stringify(this.nodeId);
    const { gap, events$ } = sinkEvents(this.bus, this.config.events, since);
    this.lostRanges += missed.length + (gap ? 1 : 0);
    const kept = new KeptMark(since ?? this.bus.lastSequence);
    this.kept = kept;
    this.subscription = events$.subscribe((e) => {
      kept.took();
      this.writer.append(e.withSourceParts(nodeIdJson));
    });
  }

  /**
   * A line is kept once written to the file (a kill -9 does not take back what the
   * kernel has); a dropped one is counted as a gap. Lines are dropped only when the
   * writer's queue is full, so they are newer than the lines waiting in it: drops
   * count as settled only once that queue has emptied. Before start() nothing is
   * taken, so nothing can be lost.
   */
  keptThrough(lastSequence: number): number {
    if (!this.kept) return lastSequence;
    const s = this.writer.stats;
    if (s.pending === 0) this.droppedSettled = s.dropped;
    this.kept.settledTotal(s.linesWritten + this.droppedSettled);
    return this.kept.checkpoint(lastSequence);
  }

  /** Lines are queued as events arrive, so what was taken is all in the writer, which writes it before closing. */
  async stop(): Promise<number> {
    const through = this.bus.lastSequence;
    this.subscription?.unsubscribe();
    await this.writer.close();
    return through;
  }

  state(): ConnectorState {
    const s = this.writer.stats;
    const before = this.previous;
    return {
      tag: this.tag,
      type: this.type,
      pending: s.pending,
      total_delivered: (before?.total_delivered ?? 0) + s.linesWritten,
      total_failed: before?.total_failed ?? 0,
      replay_gaps: (before?.replay_gaps ?? 0) + (s.dropped > 0 ? 1 : 0) + this.lostRanges,
      last_error: s.lastError ?? before?.last_error ?? null,
      last_delivered_at_unix_ms: this.writer.lastWrittenAt,
      outbox_storage: { write_blocked: false },
    };
  }
}
