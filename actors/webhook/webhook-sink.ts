import type { WebhookSinkConfig } from '../config/schema.js';
import type { LeasedOutbox, OutboxAppend, OutboxState, ReplayGap } from '../contracts/outbox.js';
import type { ConnectorState, Sink } from '../contracts/sink.js';
import type { SinkDeps } from '../sinks/sink-deps.js';
import { OutboxDispatcher } from '../sinks/outbox-dispatcher.js';
import type { BullmqDelivery } from '../outbox/bullmq-delivery.js';
import { sinkKeys } from '../outbox/bullmq-keys.js';
import { tellAck } from '../sinks/delivery-acks.js';
import { DeliveryTrouble } from './delivery-trouble.js';
import { WebhookConnector } from './webhook-connector.js';

/**
 * How often the cached connector state is refreshed from the outbox: a local read for
 * the embedded store; on Redis about ten commands, so a fleet's Redis pays 10 a second
 * per sink per node instead of 40.
 */
const STATE_REFRESH_MS = { embedded: 250, redis: 1000 };
/** How long a stop waits for deliveries in flight and the store to settle; less once the node's stop deadline is nearer. */
const STOP_WAIT_MS = 3000;

/**
 * A Webhook sink: the dispatcher keeps its filtered envelopes in the outbox. The
 * connector delivers what the embedded store holds (all of it without Redis; with
 * Redis, what Redis could not take), and a BullMQ worker the sink's Redis queue, unless
 * `delivery` is "external" (`weir deliver` processes do it). Its state is read from
 * the outbox (the same from both stores, whoever delivers) and cached, so status reads
 * never wait on disk or Redis.
 */
export class WebhookSink implements Sink {
  readonly type = 'webhook';
  private dispatcher: OutboxDispatcher | null = null;
  private connector: WebhookConnector | null = null;
  private worker: BullmqDelivery | null = null;
  private trouble: DeliveryTrouble | null = null;
  private outbox: LeasedOutbox | null = null;
  private cached: OutboxState | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly config: WebhookSinkConfig,
    private readonly deps: SinkDeps,
  ) {}

  get tag(): string {
    return this.config.tag;
  }

  async start(since?: number, missed: readonly ReplayGap[] = []): Promise<void> {
    const c = this.config;
    const outbox = await this.deps.openOutbox(c.tag, { batchSize: c.batch_size });
    try {
      // Each its own gap: ranges of different runs never continue one another.
      for (const gap of missed) await outbox.recordGap(gap, false);
    } catch (err) {
      await outbox.close();
      throw err;
    }
    this.outbox = outbox;
    this.dispatcher = new OutboxDispatcher({
      sink: c.tag,
      nodeId: this.deps.nodeId,
      events: c.events,
      bus: this.deps.bus,
      outbox,
      publish: this.deps.publish,
    });
    const trouble = new DeliveryTrouble(c.tag, this.deps.log);
    this.trouble = trouble;
    const acked = (entries: readonly OutboxAppend[]): void => tellAck(this.deps.acks, c.tag, entries);
    this.connector = new WebhookConnector(outbox, {
      target: { url: c.url, token: c.token.reveal(), timeoutMs: c.timeout_ms },
      batchSize: c.batch_size,
      concurrency: c.concurrency,
      retryForS: c.retry_for_s,
      backoff: { baseMs: c.backoff_base_ms, capMs: c.backoff_max_ms },
      trouble,
      acked,
    });
    this.dispatcher.start(since);
    this.connector.start();
    const redis = this.deps.redis;
    if (redis && c.delivery === 'node') {
      // Loaded here: a node without Redis does not pay for BullMQ.
      const { startWebhookWorker } = await import('./webhook-worker.js');
      this.worker = startWebhookWorker(c, { url: redis.url, keys: sinkKeys(this.deps.nodeId, c.tag), onError: redis.onError }, trouble, acked);
    }
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.deps.redis ? STATE_REFRESH_MS.redis : STATE_REFRESH_MS.embedded);
    this.timer.unref();
  }

  keptThrough(lastSequence: number): number {
    return this.dispatcher ? this.dispatcher.keptThrough(lastSequence) : lastSequence;
  }

  /** Everything taken from the bus reaches the outbox; what is undelivered stays there for the next start. */
  async stop(): Promise<number> {
    if (this.timer) clearInterval(this.timer);
    // One that never started has nothing to hand over: its replacement starts with live events.
    const through = this.dispatcher ? await this.dispatcher.stop() : this.deps.bus.lastSequence;
    // Deliveries in flight and the store's answers are waited for a while, not for ever:
    // a receiver or a Redis that stopped answering would hold the node's exit. What is
    // left unsettled stays leased in the store and goes out again after the next start
    // (at least once, under the same webhook-id). Within the node's stop deadline, which
    // the appends above may have used up: this wait is the one that may be cut short.
    await this.deps.deadline.within(this.closeDelivery(), STOP_WAIT_MS);
    return through;
  }

  private async closeDelivery(): Promise<void> {
    await Promise.all([this.connector?.stop(), this.worker?.close()]);
    await this.refresh();
    await this.outbox?.close();
  }

  state(): ConnectorState {
    const s = this.cached;
    return {
      tag: this.tag,
      type: this.type,
      pending: s?.pending ?? 0,
      total_delivered: s?.total_delivered ?? 0,
      total_failed: s?.total_failed ?? 0,
      replay_gaps: s?.replay_gaps ?? 0,
      last_error: s?.last_error ?? null,
      last_delivered_at_unix_ms: this.trouble?.lastAckAt ?? null,
      outbox_storage: s?.outbox_storage ?? { write_blocked: false },
      oldest_pending_age_ms: s?.oldest_pending_age_ms ?? null,
      dead_letters: s?.dead_letters ?? 0,
      gaps: s?.gaps ?? [],
    };
  }

  /** The dead-letter set, for the operator to inspect and replay. */
  deadLetters(limit: number): ReturnType<LeasedOutbox['listDeadLetters']> {
    return this.outbox ? this.outbox.listDeadLetters(limit) : Promise.resolve([]);
  }

  replayDeadLetters(ids?: readonly string[]): Promise<number> {
    return this.outbox ? this.outbox.replayDeadLetters(ids) : Promise.resolve(0);
  }

  private async refresh(): Promise<void> {
    if (!this.outbox) return;
    this.cached = await this.outbox.state().catch(() => this.cached);
  }
}
