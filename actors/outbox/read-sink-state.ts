import { redisAddressOf } from '../redis/redis-client.js';
import type { WeirConfig } from '../config/schema.js';
import type { OutboxState } from '../contracts/outbox.js';
import { readOutboxState } from './read-outbox-state.js';

/**
 * A Webhook sink's state read straight from its outbox, with no node running: the
 * embedded store in the state dir, or with Redis configured, Redis (when reachable)
 * plus what the outage journal in the state dir still owes the queue. Null when
 * neither holds anything of the sink.
 */
export async function readSinkOutboxState(config: WeirConfig, sink: string): Promise<OutboxState | null> {
  const embedded = await readOutboxState(config.node.state_dir, sink);
  if (!config.redis) return embedded;
  const { readRedisOutboxState } = await import('./read-bullmq-outbox-state.js');
  const redis = await readRedisOutboxState(redisAddressOf(config.redis), config.node.id, sink).catch(() => null);
  if (!redis || !embedded) return redis ?? embedded;
  const ages = [redis.oldest_pending_age_ms, embedded.oldest_pending_age_ms].filter((a) => a !== null);
  return {
    ...redis,
    pending: redis.pending + embedded.pending,
    outbox_storage: { ...redis.outbox_storage, bytes: redis.outbox_storage.bytes + embedded.outbox_storage.bytes },
    oldest_pending_age_ms: ages.length > 0 ? Math.max(...ages) : null,
  };
}
