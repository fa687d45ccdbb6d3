import type { Redis } from 'ioredis';
import type { OutboxAppend } from '../contracts/outbox.js';
import { bytesOf, eventsOf, type JobData } from './bullmq-jobs.js';
import type { SinkKeys } from './bullmq-keys.js';

/**
 * Removes waiting or delayed jobs: from `wait` or `delayed`, their hash, their
 * `enqueued` member. Every command frees memory, so a Redis out of memory runs it.
 * KEYS: wait, delayed, enqueued; ARGV: the key base, then job ids.
 */
const REMOVE_WAITING = `
for i = 2, #ARGV do
  redis.call('LREM', KEYS[1], 1, ARGV[i])
  redis.call('ZREM', KEYS[2], ARGV[i])
  redis.call('DEL', ARGV[1] .. ARGV[i])
  redis.call('ZREM', KEYS[3], ARGV[i])
end`;

/**
 * Moves up to `max` of the oldest waiting jobs, then of the retries waiting in the
 * delayed set, into `into` (the embedded store) and then out of Redis; resolves with how
 * many and their bytes. It is how a Redis out of memory drains: the script that hands a
 * worker its next job writes first and is refused then, while removals are not, so the
 * jobs are read, kept by `into`, and deleted, which frees Redis for the fleet. A crash
 * between the two steps leaves an event in both stores, delivered twice under one
 * event_id. Moved entries start over at attempts 0, due at once. `max` counts jobs; the
 * result counts events.
 */
export async function evacuateWaiting(
  redis: Redis,
  keys: SinkKeys,
  max: number,
  into: (entries: OutboxAppend[]) => Promise<void>,
): Promise<{ moved: number; bytes: number }> {
  // BullMQ pushes new jobs at the head of `wait` and takes them from the tail.
  const waiting = (await redis.lrange(`${keys.base}wait`, -max, -1)).reverse();
  const delayed = waiting.length < max ? await redis.zrange(`${keys.base}delayed`, 0, max - waiting.length - 1) : [];
  const ids = [...waiting, ...delayed];
  const read = await redis.pipeline(ids.map((id) => ['hget', keys.base + id, 'data'])).exec();
  const moved = ids.flatMap((id, i) => {
    const data = read?.[i]?.[1];
    return typeof data === 'string' ? [{ id, events: eventsOf(JSON.parse(data) as JobData) }] : [];
  });
  const events = moved.flatMap((m) => m.events);
  if (events.length === 0) return { moved: 0, bytes: 0 };
  await into(events);
  await redis.eval(REMOVE_WAITING, 3, `${keys.base}wait`, `${keys.base}delayed`, keys.enqueued, keys.base, ...moved.map((m) => m.id));
  return { moved: events.length, bytes: bytesOf(events) };
}
