import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { OutboxState, WriteBlockReason } from '../contracts/outbox.js';
import { nodeOutboxKey, sinkKeys } from './bullmq-keys.js';
import { bullmqSinkState } from './bullmq-sink-state.js';

/**
 * A sink's Redis outbox state without a running node (`weir connector state`). Unlike
 * opening the store it leaves the node's leased (active) jobs alone, so it is safe
 * while the node runs. Rejects when Redis cannot be reached.
 */
export async function readRedisOutboxState(url: string, nodeId: string, sink: string): Promise<OutboxState> {
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true, retryStrategy: () => null });
  redis.on('error', () => undefined);
  const keys = sinkKeys(nodeId, sink);
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  const queue = new Queue(keys.queue, { connection: redis, prefix: keys.prefix });
  queue.on('error', () => undefined);
  try {
    const blocked = ((await redis.hget(nodeOutboxKey(nodeId), 'write_blocked_reason')) || null) as WriteBlockReason | null;
    return await bullmqSinkState(queue, redis, keys, blocked);
  } finally {
    await queue.close().catch(() => undefined);
    redis.disconnect();
  }
}
