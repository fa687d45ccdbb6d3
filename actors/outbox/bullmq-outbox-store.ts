import { Queue } from 'bullmq';
import type { OutboxLimits, OutboxOpenOptions, OutboxStore, WriteBlockReason } from '../contracts/outbox.js';
import { connectRedis, type RedisAddress, type RedisClient } from '../redis/redis-client.js';
import { readyRedis } from '../redis/cluster-readiness.js';
import { refusalOf } from '../redis/redis-refusal.js';
import { nodeOutboxKey, sinkKeys } from './bullmq-keys.js';
import type { JobData } from './bullmq-jobs.js';
import { BullmqOutbox } from './bullmq-outbox.js';
import { OutboxBudget } from './outbox-budget.js';
import { RedisOutboxMemory } from './redis-loss-watch.js';
import { RedisNodeClaim } from './redis-node-claim.js';
import { drainLegacyQueue } from './legacy-queue-drain.js';
import { recordSinkQueue } from './sink-queue-nodes.js';

export interface BullmqOutboxStoreOptions {
  /** The Redis: a redis:// or rediss:// URL (config `redis.url`), or a cluster's seeds (`redis.cluster`). */
  url: RedisAddress;
  nodeId: string;
  /** max_bytes applies; min_free_bytes does not (Redis keeps its data elsewhere). */
  limits: OutboxLimits;
  /** Told of connection errors of the Redis clients (calls fail with OutboxUnavailable meanwhile). */
  onError?: (err: Error) => void;
  /**
   * The node's state_dir: what it keeps there of its Redis outboxes tells a loss of
   * one while the node was stopped. Without it a loss is seen only while running.
   */
  stateDir?: string;
  /** The engine run's first bus sequence. @defaultValue 1 */
  runFirstSequence?: number;
  /** Told when Redis lost a sink's outbox. */
  onLost?: (message: string) => void;
  /** How long the node's claim of its id lasts unrefreshed (redis-node-claim.ts). @defaultValue 30000 */
  claimTtlMs?: number;
  /** Told when another node took this node's id on Redis while it ran. */
  onClaimLost?: (message: string) => void;
}

/**
 * How long the producer connection waits for Redis to answer. A Redis that stops
 * answering with its connection open (a partition, a stalled host) would otherwise
 * hold every append, and the events behind it, for as long as it lasts; timed out,
 * the append goes to the embedded store instead. If Redis runs it after all, the
 * events exist twice under the same event_ids, which delivery at least once allows.
 */
const APPEND_TIMEOUT_MS = 3000;

/**
 * The Redis store of a node: one producer connection for every sink, with no offline
 * queue, one retry per command and a reply timeout, so an append fails fast while
 * Redis is down or hung instead of piling up in memory; ioredis reconnects by itself
 * when Redis is back.
 */
export class BullmqOutboxStore implements OutboxStore<BullmqOutbox> {
  private readonly outboxes = new Set<BullmqOutbox>();
  private readonly memory: RedisOutboxMemory | undefined;

  private constructor(
    private readonly opts: BullmqOutboxStoreOptions,
    private readonly redis: RedisClient,
    private readonly budget: OutboxBudget,
    private readonly claim: RedisNodeClaim,
  ) {
    this.memory = opts.stateDir === undefined ? undefined : new RedisOutboxMemory(opts.stateDir);
  }

  /**
   * Connects the producer and claims the node id; rejects when Redis cannot be reached
   * now, and with NodeIdInUseError when another running node has the same id.
   */
  static async connect(opts: BullmqOutboxStoreOptions): Promise<BullmqOutboxStore> {
    const onError = opts.onError ?? (() => undefined);
    const redis = connectRedis(opts.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: APPEND_TIMEOUT_MS,
      lazyConnect: true,
    });
    redis.on('error', onError);
    try {
      await readyRedis(redis);
      const claim = await RedisNodeClaim.take(redis, {
        nodeId: opts.nodeId,
        ...(opts.stateDir !== undefined && { stateDir: opts.stateDir }),
        ...(opts.claimTtlMs !== undefined && { ttlMs: opts.claimTtlMs }),
        ...(opts.onClaimLost && { onLost: opts.onClaimLost }),
      });
      const lastKnown = ((await redis.hget(nodeOutboxKey(opts.nodeId), 'write_blocked_reason')) || null) as WriteBlockReason | null;
      const budget = new OutboxBudget(
        opts.limits,
        null,
        (reason) => void redis.hset(nodeOutboxKey(opts.nodeId), 'write_blocked_reason', reason ?? '').catch(onError),
        lastKnown,
      );
      return new BullmqOutboxStore(opts, redis, budget, claim);
    } catch (err) {
      redis.disconnect();
      throw refusalOf(redis, err);
    }
  }

  async open(sink: string, opts: OutboxOpenOptions = {}): Promise<BullmqOutbox> {
    const keys = sinkKeys(this.opts.nodeId, sink);
    const onError = this.opts.onError ?? (() => undefined);
    const queue = new Queue<JobData, string, string>(keys.queue, { connection: this.redis, prefix: keys.prefix });
    queue.on('error', onError);
    try {
      await queue.waitUntilReady();
      await recordSinkQueue(this.redis, { nodeId: this.opts.nodeId, tag: sink });
      const outbox = await BullmqOutbox.open({
        sink,
        keys,
        queue,
        redis: this.redis,
        budget: this.budget,
        ...(opts.batchSize !== undefined && { batchSize: opts.batchSize }),
        onClose: (o) => this.outboxes.delete(o),
        loss: {
          runFirstSequence: this.opts.runFirstSequence ?? 1,
          ...(this.memory && { memory: this.memory }),
          ...(this.opts.onLost && { onLost: this.opts.onLost }),
        },
      });
      await drainLegacyQueue(this.redis, this.opts.nodeId, sink, keys, (groups) => outbox.add(groups)).catch(async (err: unknown) => {
        await outbox.close();
        throw err;
      });
      this.outboxes.add(outbox);
      return outbox;
    } catch (err) {
      await queue.close().catch(() => undefined);
      throw err;
    }
  }

  async close(): Promise<void> {
    // Side by side, so a hung Redis does not make the node's stop longer: the queues
    // wait for it at most 3 s, and so does the release (the producer's reply timeout);
    // a claim left lapses by itself.
    await Promise.all([...[...this.outboxes].map((o) => o.close()), this.claim.release()]);
    this.redis.disconnect();
  }
}
