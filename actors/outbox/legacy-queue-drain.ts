import { Queue } from 'bullmq';
import type { RedisClient } from '../redis/redis-client.js';
import { envelopesOf, type JobData, type TimedGroup } from './bullmq-jobs.js';
import { legacySinkKeys, type SinkKeys } from './bullmq-keys.js';

/** The states of a job not yet delivered nor dead: an `active` one was held by a node or worker now gone. */
const PENDING_STATES = ['wait', 'prioritized', 'delayed', 'active'] as const;
/** The counters and lists of the old state kept across the move. */
const COUNTERS = ['total_delivered', 'total_failed', 'replay_gaps'] as const;

/**
 * Moves a sink's queue of the layout before the hash tag (`weir:<node>:sink:<tag>`) into
 * its queue now as the node opens the sink: each pending job added under its id, then
 * removed (a kill in between adds it again, adding nothing). Once the old queue holds no
 * job (dead letters stay), its counters and gaps join the new ones and its keys go. Only
 * a standalone Redis has the old layout: a cross-slot MULTI is fine. Resolves to the jobs moved.
 */
export async function drainLegacyQueue(redis: RedisClient, nodeId: string, sink: string, keys: SinkKeys, add: (groups: TimedGroup[]) => Promise<void>): Promise<number> {
  const old = legacySinkKeys(nodeId, sink);
  // Two commands for a Redis that never held the old layout (every start of a sink).
  // Two EXISTS, not one of both keys: without the hash tag they are in two slots.
  const found = await Promise.all([redis.exists(`${old.base}meta`), redis.exists(old.state)]);
  if (found[0] + found[1] === 0) return 0;
  const queue = new Queue<JobData, string, string>(old.queue, { connection: redis, prefix: old.prefix });
  try {
    const jobs = (await queue.getJobs([...PENDING_STATES])).filter((j) => j.id !== undefined);
    // The old layout predates bodies kept beside the job: every job's data holds them.
    if (jobs.length > 0) await add(jobs.map((j) => ({ id: j.id!, events: envelopesOf(j.data, null)!, atUnixMs: j.timestamp })));
    for (const job of jobs) await redis.eval(REMOVE_JOB, 0, `${old.base}${job.id!}`, job.id!, old.base);
    const left = await queue.getJobCountByTypes('failed', ...PENDING_STATES);
    if (left === 0) {
      await moveCounters(redis, old, keys);
      await queue.obliterate({ force: true });
    }
    return jobs.length;
  } finally {
    await queue.close();
  }
}

/** Removes a job from every list and set of the old queue, lock or not: its events are in the new queue, its holder ran old code. */
const REMOVE_JOB = `
local key, id, base = ARGV[1], ARGV[2], ARGV[3]
for _, list in ipairs({'wait', 'paused', 'active'}) do redis.call('LREM', base .. list, 0, id) end
for _, set in ipairs({'delayed', 'prioritized'}) do redis.call('ZREM', base .. set, id) end
redis.call('SREM', base .. 'stalled', id)
redis.call('DEL', key .. ':lock', key .. ':logs', key)
return 1`;

async function moveCounters(redis: RedisClient, old: SinkKeys, keys: SinkKeys): Promise<void> {
  const [counters, gaps] = await Promise.all([redis.hmget(old.state, ...COUNTERS), redis.lrange(old.gaps, 0, -1)]);
  const m = redis.multi();
  COUNTERS.forEach((field, i) => m.hincrby(keys.state, field, Number(counters[i] ?? 0)));
  if (gaps.length > 0) m.lpush(keys.gaps, ...gaps.reverse());
  m.del(old.state, old.gaps, old.enqueued);
  await m.exec();
}
