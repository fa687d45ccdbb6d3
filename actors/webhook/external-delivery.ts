import { connectRedis, type RedisAddress, type RedisClient } from '../redis/redis-client.js';
import { refusalOf } from '../redis/redis-refusal.js';
import type { Logger } from 'pino';
import type { WebhookSinkConfig } from '../config/schema.js';
import type { BullmqDelivery } from '../outbox/bullmq-delivery.js';
import { sinkKeys } from '../outbox/bullmq-keys.js';
import { sinkQueueNodes } from '../outbox/sink-queue-nodes.js';
import { DeliveryTrouble } from './delivery-trouble.js';
import { startWebhookWorker } from './webhook-worker.js';

export interface ExternalDeliveryOptions {
  redis: RedisAddress;
  sinks: readonly WebhookSinkConfig[];
  /** Deliver only this node's queues; every node's in the Redis's queue index when null. */
  nodeId: string | null;
  log: Logger;
  /** How often the queue index is read for queues of nodes that appeared since. @defaultValue 5000 */
  rescanMs?: number;
}

/**
 * `weir deliver`: BullMQ workers for the config's Webhook sinks, one per sink queue of
 * every node in the Redis's queue index (sink-queue-nodes.ts; or of one node), started as nodes appear. Any number
 * of these may run beside the nodes and each other: BullMQ hands each job to one
 * worker at a time, and the counters are kept in Redis (bullmq-counts.ts).
 */
export class ExternalDelivery {
  private readonly workers = new Map<string, BullmqDelivery>();
  private readonly redis: RedisClient;
  private timer: NodeJS.Timeout | null = null;
  private searching: Promise<void> = Promise.resolve();

  constructor(private readonly opts: ExternalDeliveryOptions) {
    this.redis = connectRedis(opts.redis, { maxRetriesPerRequest: 1 });
    this.redis.on('error', (err: Error) => opts.log.warn({ err: err.message }, 'redis error'));
  }

  /** The queues delivered now, as `node/sink`. */
  get queues(): string[] {
    return [...this.workers.keys()].sort();
  }

  /** Rejects when Redis does not answer, also with `nodeId` set, where the search asks it nothing. */
  async start(): Promise<void> {
    await this.redis.ping().catch((err: unknown) => {
      throw refusalOf(this.redis, err);
    });
    await this.search();
    this.timer = setInterval(() => {
      this.searching = this.searching.then(() => this.search()).catch((err: unknown) => this.opts.log.warn({ err: String(err) }, 'search for sink queues failed'));
    }, this.opts.rescanMs ?? 5000);
  }

  private async search(): Promise<void> {
    for (const sink of this.opts.sinks) {
      const nodes = this.opts.nodeId !== null ? [this.opts.nodeId] : await sinkQueueNodes(this.redis, sink.tag);
      for (const nodeId of nodes) {
        const name = `${nodeId}/${sink.tag}`;
        if (this.workers.has(name)) continue;
        const onError = (err: Error): void => this.opts.log.warn({ queue: name, err: err.message }, 'delivery worker error');
        const trouble = new DeliveryTrouble(name, this.opts.log);
        this.workers.set(name, startWebhookWorker(sink, { url: this.opts.redis, keys: sinkKeys(nodeId, sink.tag), onError }, trouble));
        this.opts.log.info({ queue: name }, 'delivering queue');
      }
    }
  }

  /** Stops taking jobs and waits for the deliveries under way. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.searching;
    await Promise.all([...this.workers.values()].map((w) => w.close()));
    this.redis.disconnect();
  }
}
