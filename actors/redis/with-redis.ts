import { readyRedis } from './cluster-readiness.js';
import { explainRedisError } from '../errors/redis-unreachable.js';
import { connectRedis, firstUrl, type RedisAddress, type RedisClient } from './redis-client.js';
import { refusalOf } from './redis-refusal.js';

/**
 * Runs `work` on a connection of its own that fails rather than waits: no reconnect,
 * no offline queue, one retry per command. A command reads Redis this way and exits
 * with what it found, or with why Redis cannot be used: a refusal names it (refusalOf;
 * a cluster whose ready check fails is one), other errors are explained with the URL
 * and the OS error (explainRedisError).
 */
export async function withRedis<T>(address: RedisAddress, work: (redis: RedisClient) => Promise<T>): Promise<T> {
  const redis = connectRedis(address, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await readyRedis(redis);
    return await work(redis);
  } catch (err) {
    throw await explainRedisError(refusalOf(redis, err), firstUrl(address));
  } finally {
    redis.disconnect();
  }
}
