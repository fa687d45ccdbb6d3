import fs from 'node:fs';
import path from 'node:path';
import { redisAddressOf, type RedisAddress } from '../actors/redis/redis-client.js';
import { withRedis } from '../actors/redis/with-redis.js';
import type { WeirConfig } from '../actors/config/schema.js';
import type { OutboxState, WriteBlockReason } from '../actors/contracts/outbox.js';
import { nodeOutboxKey, sinkKeys } from '../actors/outbox/bullmq-keys.js';
import { readBullmqSink } from '../actors/outbox/bullmq-sink-state.js';
import { outboxState } from '../actors/outbox/outbox-state.js';
import { outboxDir, readWriteBlock, replayJournal, sinkDir } from '../actors/outbox/journal-outbox-store.js';

/** What `weir connector state` reads of a sink; `redisError` when Redis was configured but did not answer. */
export interface SinkOutboxReading {
  state: OutboxState | null;
  redisError: Error | null;
}

/**
 * A Webhook sink's state read straight from its outbox, with no node running (`weir
 * connector state`): the embedded store in the state dir, or with Redis configured,
 * Redis plus what the outage journal in the state dir still owes the queue. When Redis
 * does not answer the state is the state dir's alone, and `redisError` says why. Null
 * state when neither holds anything of the sink.
 */
export async function readSinkOutboxState(config: WeirConfig, sink: string): Promise<SinkOutboxReading> {
  const embedded = await readOutboxState(config.node.state_dir, sink);
  if (!config.redis) return { state: embedded, redisError: null };
  let redisError: Error | null = null;
  const redis = await readRedisOutboxState(redisAddressOf(config.redis), config.node.id, sink).catch((err: Error) => {
    redisError = err;
    return null;
  });
  if (!redis || !embedded) return { state: redis ?? embedded, redisError };
  const ages = [redis.oldest_pending_age_ms, embedded.oldest_pending_age_ms].filter((a) => a !== null);
  const state = {
    ...redis,
    pending: redis.pending + embedded.pending,
    outbox_storage: { ...redis.outbox_storage, bytes: redis.outbox_storage.bytes + embedded.outbox_storage.bytes },
    oldest_pending_age_ms: ages.length > 0 ? Math.max(...ages) : null,
  };
  return { state, redisError };
}

/**
 * A sink's embedded outbox state: its journal replayed read-only (a batch the node is
 * writing meanwhile is not complete and does not count), or an LMDB outbox of an
 * earlier version that no node imported yet. Null when the state dir holds no outbox
 * of that sink. write_blocked is the last one the node recorded.
 */
export async function readOutboxState(stateDir: string, sink: string): Promise<OutboxState | null> {
  if (fs.existsSync(path.join(outboxDir(stateDir), 'data.mdb'))) {
    const { readLmdbOutboxState } = await import('../actors/upgrade/lmdb-outbox.js');
    return readLmdbOutboxState(stateDir, sink);
  }
  const dir = sinkDir(stateDir, sink);
  if (!fs.existsSync(dir)) return null;
  const { book } = await replayJournal(dir);
  return outboxState('embedded', book.counts(), book.oldestPending(), book.gaps, readWriteBlock(stateDir), Date.now());
}

/** A sink's Redis outbox state: reads only, so it is safe while the node runs. Rejects when Redis cannot be reached. */
export async function readRedisOutboxState(url: RedisAddress, nodeId: string, sink: string): Promise<OutboxState> {
  return withRedis(url, async (redis) => {
    const blocked = ((await redis.hget(nodeOutboxKey(nodeId), 'write_blocked_reason')) || null) as WriteBlockReason | null;
    // From 0: a member without a job may be of an append under way of a running node, and is left alone.
    return (await readBullmqSink(redis, sinkKeys(nodeId, sink), blocked, 0)).state;
  });
}
