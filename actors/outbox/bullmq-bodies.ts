import type { RedisClient } from '../redis/redis-client.js';
import type { OutboxAppend } from '../contracts/outbox.js';
import { bodiesKey, type SinkKeys } from './bullmq-keys.js';
import { COUNTED_FIELD } from './bullmq-counts.js';

/*
 * A large job's envelopes live beside it (bodiesKey) and its data keeps ids and
 * sequences: inside BullMQ's data each body is JSON within JSON, escaped on the add and
 * parsed on the fetch, a fifth of the node's CPU under a backlog. Written before the add,
 * so a worker finds them; deleted when the delivery is counted (bullmq-counts.ts).
 */

/** A job's bodies joined by newlines (JSON has none): a string, which ioredis encodes once, where a Buffer is copied again. */
export function joinBodies(events: readonly OutboxAppend[]): string {
  return events.map((e) => e.body).join('\n');
}

/**
 * Stores the bodies of jobs about to be added. A job whose delivery was counted keeps
 * none (the move of the outage journal may add it again within the time BullMQ keeps
 * it); any other job's bodies are written, the same again for a job still queued.
 * KEYS: pairs of job hash and bodies key; ARGV: the delivered field, then the bodies.
 */
const WRITE_BODIES = `
for i = 1, #KEYS, 2 do
  if redis.call('HEXISTS', KEYS[i], ARGV[1]) == 0 then redis.call('SET', KEYS[i + 1], ARGV[(i + 1) / 2 + 1]) end
end`;

export async function writeBodies(redis: RedisClient, keys: SinkKeys, jobs: readonly { id: string; stored: string }[]): Promise<void> {
  const pairs = jobs.flatMap((j) => [keys.base + j.id, bodiesKey(keys, j.id)]);
  await redis.eval(WRITE_BODIES, pairs.length, ...pairs, COUNTED_FIELD, ...jobs.map((j) => j.stored));
}

/** The stored bodies of each job, null for one that has none. */
export async function readBodies(redis: RedisClient, keys: SinkKeys, jobIds: readonly string[]): Promise<(string | null)[]> {
  return jobIds.length === 0 ? [] : redis.mget(jobIds.map((id) => bodiesKey(keys, id)));
}
