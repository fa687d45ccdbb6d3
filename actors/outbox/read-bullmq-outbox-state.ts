import type { OutboxState, WriteBlockReason } from '../contracts/outbox.js';
import { connectRedis, type RedisAddress } from '../redis/redis-client.js';
import { refusalOf } from '../redis/redis-refusal.js';
import { nodeOutboxKey, sinkKeys } from './bullmq-keys.js';
import { bullmqSinkState } from './bullmq-sink-state.js';

/**
 * A sink's Redis outbox state without a running node (`weir connector state`): reads
 * only, so it is safe while the node runs. Rejects when Redis cannot be reached.
 */
export async function readRedisOutboxState(url: RedisAddress, nodeId: string, sink: string): Promise<OutboxState> {
  const redis = connectRedis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true, retryStrategy: () => null });
  redis.on('error', () => undefined);
  const keys = sinkKeys(nodeId, sink);
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    throw refusalOf(redis, err);
  }
  try {
    const blocked = ((await redis.hget(nodeOutboxKey(nodeId), 'write_blocked_reason')) || null) as WriteBlockReason | null;
    return await bullmqSinkState(redis, keys, blocked);
  } finally {
    redis.disconnect();
  }
}
