import type { Observable, Subscription } from 'rxjs';
import type { PublishedEvent } from '../../streams/published-event.js';
import { filterTypes, typeFilter } from '../../streams/type-filter.js';
import type { JsonlSinkConfig } from '../config/schema.js';
import type { ConnectorState, Sink } from '../contracts/sink.js';
import { JsonlWriter } from './jsonl-writer.js';

/**
 * Appends the sink's filtered envelopes to a JSONL file with the node id as
 * source_id. flow.snapshot never reaches it: the bus does not carry snapshots.
 */
export class JsonlSink implements Sink {
  readonly type = 'jsonl';
  private readonly writer: JsonlWriter;
  private subscription: Subscription | null = null;

  constructor(
    private readonly config: JsonlSinkConfig,
    private readonly nodeId: string,
    private readonly events$: Observable<PublishedEvent>,
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

  async start(): Promise<void> {
    await this.writer.open();
    const nodeIdJson = JSON.stringify(this.nodeId);
    this.subscription = this.events$
      .pipe(filterTypes(typeFilter(this.config.events)))
      .subscribe((e) => this.writer.append(e.withSourceParts(nodeIdJson)));
  }

  async stop(): Promise<void> {
    this.subscription?.unsubscribe();
    await this.writer.close();
  }

  state(): ConnectorState {
    const s = this.writer.stats;
    return {
      tag: this.tag,
      type: this.type,
      pending: s.pending,
      total_delivered: s.linesWritten,
      total_failed: 0,
      replay_gaps: s.dropped > 0 ? 1 : 0,
      last_error: s.lastError,
      outbox_storage: { write_blocked: false },
    };
  }
}
