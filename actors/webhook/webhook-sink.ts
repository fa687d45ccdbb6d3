import type { WebhookSinkConfig } from '../config/schema.js';
import type { Outbox, OutboxAppend, OutboxState, ReplayGap } from '../contracts/outbox.js';
import type { ConnectorState, Sink } from '../contracts/sink.js';
import type { SinkDeps } from '../sinks/sink-deps.js';
import { OutboxDispatcher } from '../sinks/outbox-dispatcher.js';
import type { BullmqDelivery } from '../outbox/bullmq-delivery.js';
import { sinkKeys } from '../outbox/bullmq-keys.js';
import { tellAck } from '../sinks/delivery-acks.js';
import { DeliveryTrouble } from './delivery-trouble.js';
import { WebhookConnector } from './webhook-connector.js';

/** How often the cached connector state of an embedded outbox is refreshed: a local read. */
const EMBEDDED_REFRESH_MS = 250;
/**
 * How long a state read from Redis serves whoever asks (the API, status, a metrics
 * scrape, the fleet presence): many readers within it cost Redis one read, and an idle
 * node nobody asks reads nothing.
 */
const REDIS_STATE_FRESH_MS = 1000;
/** How long an asker waits for a state read from Redis before it takes the last one. */
const REDIS_STATE_WAIT_MS = 2000;
/** How long a stop waits for deliveries in flight and the store to settle; less once the node's stop deadline is nearer. */
const STOP_WAIT_MS = 3000;

/**
 * A Webhook sink: the dispatcher keeps its filtered envelopes in the outbox, and one
 * engine delivers them. Without Redis it is the connector, from the embedded store;
 * with Redis a BullMQ worker of the sink's queue, unless `delivery` is "external"
 * (`weir deliver` processes do it). Its state is read from the outbox (the same from
 * both stores, whoever delivers) and cached: the embedded store's every 250 ms, Redis's
 * when someone asks (refreshState), so `state()` never waits on disk or Redis.
 */
export class WebhookSink implements Sink {
  readonly type = 'webhook';
  private dispatcher: OutboxDispatcher | null = null;
  private connector: WebhookConnector | null = null;
  private worker: BullmqDelivery | null = null;
  private trouble: DeliveryTrouble | null = null;
  private outbox: Outbox | null = null;
  private cached: OutboxState | null = null;
  private cachedAt = 0;
  private reading: Promise<void> | null = null;
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
    const opened = await this.deps.openOutbox(c.tag, { batchSize: c.batch_size });
    const { outbox } = opened;
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
    this.dispatcher.start(since);
    const redis = this.deps.redis;
    if (opened.store === 'embedded') {
      this.connector = new WebhookConnector(opened.outbox, {
        target: { url: c.url, token: c.token.reveal(), timeoutMs: c.timeout_ms },
        batchSize: c.batch_size,
        concurrency: c.concurrency,
        retryForS: c.retry_for_s,
        backoff: { baseMs: c.backoff_base_ms, capMs: c.backoff_max_ms },
        trouble,
        acked,
      });
      this.connector.start();
      this.timer = setInterval(() => void this.refresh(), EMBEDDED_REFRESH_MS);
      this.timer.unref();
    } else if (redis && c.delivery === 'node') {
      // Loaded here: a node without Redis does not pay for BullMQ.
      const { startWebhookWorker } = await import('./webhook-worker.js');
      this.worker = startWebhookWorker(c, { url: redis.url, keys: sinkKeys(this.deps.nodeId, c.tag), onError: redis.onError }, trouble, acked);
    }
    await this.refresh();
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

  /**
   * Someone asks for the state: read it from Redis unless a read is under way or the
   * last one is younger than REDIS_STATE_FRESH_MS; waits for it at most
   * REDIS_STATE_WAIT_MS. The embedded store's state is kept fresh by its timer.
   */
  async refreshState(): Promise<void> {
    if (this.timer || !this.outbox || Date.now() - this.cachedAt < REDIS_STATE_FRESH_MS) return;
    this.reading ??= this.refresh().finally(() => (this.reading = null));
    await this.deps.deadline.within(this.reading, REDIS_STATE_WAIT_MS);
  }

  /** The dead-letter set, for the operator to inspect and replay. */
  deadLetters(limit: number): ReturnType<Outbox['listDeadLetters']> {
    return this.outbox ? this.outbox.listDeadLetters(limit) : Promise.resolve([]);
  }

  replayDeadLetters(ids?: readonly string[]): Promise<number> {
    return this.outbox ? this.outbox.replayDeadLetters(ids) : Promise.resolve(0);
  }

  private async refresh(): Promise<void> {
    if (!this.outbox) return;
    const state = await this.outbox.state().catch(() => null);
    if (!state) return;
    this.cached = state;
    this.cachedAt = Date.now();
  }
}
