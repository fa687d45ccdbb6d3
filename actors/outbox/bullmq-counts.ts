import type { RedisClient } from '../redis/redis-client.js';
import { bodiesKey, type SinkKeys } from './bullmq-keys.js';

/**
 * Fields of a job's hash: its events are counted in `pending` (set once, by the add's
 * count); its delivery is counted; its events are counted as dead letters (a replay
 * clears it).
 */
export const ADDED_FIELD = 'weir_added';
export const COUNTED_FIELD = 'weir_delivered';
export const DEAD_FIELD = 'weir_dead';

/**
 * Counts the jobs an add put in the queue, once per job whatever adds it again (a job
 * id that BullMQ already holds is not added twice): their events into `pending`, their
 * bytes, and their `enqueued` member with their append time. A job already delivered
 * or dead (one added again by the move of the outage journal after a worker took it)
 * is marked and not counted.
 * KEYS: state hash, enqueued, then the job hashes; ARGV: the added, counted and dead
 * fields, then append time, job id, bytes and events for each job.
 */
const COUNT_ADDED = `
local bytes, pending = 0, 0
for i = 3, #KEYS do
  local a = 4 * (i - 3) + 4
  if redis.call('EXISTS', KEYS[i]) == 1 and redis.call('HSETNX', KEYS[i], ARGV[1], '1') == 1
      and redis.call('HEXISTS', KEYS[i], ARGV[2]) == 0 and redis.call('HEXISTS', KEYS[i], ARGV[3]) == 0 then
    bytes = bytes + tonumber(ARGV[a + 2])
    pending = pending + tonumber(ARGV[a + 3])
    redis.call('ZADD', KEYS[2], 'NX', ARGV[a], ARGV[a + 1])
  end
end
if bytes ~= 0 then redis.call('HINCRBY', KEYS[1], 'bytes', bytes) end
if pending ~= 0 then redis.call('HINCRBY', KEYS[1], 'pending', pending) end
return pending`;

/**
 * Counts each delivered job once (its hash's mark): its events as delivered, and, if
 * its add was counted, out of `pending` (or of `dead_letters`, for a job counted dead
 * whose move to the failed set never happened) with its bytes and `enqueued` member.
 * Its bodies go (bullmq-bodies.ts). A job the outage journal's move is adding is marked
 * settled (journaled-outbox.ts).
 * KEYS: state hash, enqueued, moving hash, then job hash and bodies key of each job;
 * ARGV: the fields counted, dead and added, then job id, bytes and events of each job.
 */
const COUNT_DELIVERED = `
local delivered, bytes, pending, dead = 0, 0, 0, 0
for i = 4, #KEYS, 2 do
  local a = 3 * (i - 4) / 2 + 4
  local id, size, n = ARGV[a], tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  if redis.call('HEXISTS', KEYS[3], id) == 1 then redis.call('HSET', KEYS[3], id, '1') end
  redis.call('DEL', KEYS[i + 1])
  if redis.call('EXISTS', KEYS[i]) == 1 and redis.call('HSETNX', KEYS[i], ARGV[1], '1') == 1 then
    delivered = delivered + n
    if redis.call('HEXISTS', KEYS[i], ARGV[3]) == 1 then
      bytes = bytes + size
      if redis.call('HEXISTS', KEYS[i], ARGV[2]) == 1 then dead = dead + n else pending = pending + n end
      redis.call('ZREM', KEYS[2], id)
    end
  end
end
-- Lua writes a negated 0 as '-0', which HINCRBY refuses.
for field, n in pairs({total_delivered = delivered, bytes = -bytes, pending = -pending, dead_letters = -dead}) do
  if n ~= 0 then redis.call('HINCRBY', KEYS[1], field, n) end
end
return delivered`;

/**
 * A failed attempt of a job's events: total_failed and last_error; a dead letter moves
 * them from `pending` to `dead_letters` once per job (out of `pending` only if its add
 * was counted), and leaves `enqueued`; a dead job the outage journal's move is adding
 * is marked settled.
 * KEYS: state hash, enqueued, job hash, moving hash; ARGV: events, last_error, dead
 * (1/0), job id, dead field, added field.
 */
const COUNT_FAILED = `
redis.call('HINCRBY', KEYS[1], 'total_failed', ARGV[1])
redis.call('HSET', KEYS[1], 'last_error', ARGV[2])
if ARGV[3] == '1' and redis.call('HEXISTS', KEYS[4], ARGV[4]) == 1 then redis.call('HSET', KEYS[4], ARGV[4], '1') end
if ARGV[3] == '1' and redis.call('EXISTS', KEYS[3]) == 1 and redis.call('HSETNX', KEYS[3], ARGV[5], '1') == 1 then
  if redis.call('HEXISTS', KEYS[3], ARGV[6]) == 1 then redis.call('HINCRBY', KEYS[1], 'pending', -tonumber(ARGV[1])) end
  redis.call('HINCRBY', KEYS[1], 'dead_letters', ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[4])
end`;

/** A job as the counters see it. */
export interface CountedJob {
  jobId: string;
  bytes: number;
  events: number;
}

/** Counts the jobs of an add (COUNT_ADDED); resolves with the events newly counted pending. */
export async function countAdded(redis: RedisClient, keys: SinkKeys, jobs: readonly (CountedJob & { atUnixMs: number })[]): Promise<number> {
  const args = jobs.flatMap((j) => [j.atUnixMs, j.jobId, j.bytes, j.events]);
  const jobKeys = jobs.map((j) => keys.base + j.jobId);
  return (await redis.eval(COUNT_ADDED, 2 + jobKeys.length, keys.state, keys.enqueued, ...jobKeys, ADDED_FIELD, COUNTED_FIELD, DEAD_FIELD, ...args)) as number;
}

/**
 * The counters a sink's delivery keeps in its `state` hash, written by whichever
 * process delivers. A delivery is counted before BullMQ completes the job, once per
 * job: a worker that dies between the two leaves the job to be delivered again by
 * stalled-job recovery, and the mark on the job's hash keeps it from counting twice.
 * A count Redis refuses (out of memory, gone) fails the job's attempt: it is delivered
 * again later and counted then.
 */
export class DeliveryCounts {
  private due: CountedJob[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: SinkKeys,
  ) {}

  /**
   * Counts a delivered job. The counts asked for in one turn of the event loop (the jobs
   * of one request, settled together) go to Redis in one script.
   */
  delivered(job: CountedJob): Promise<void> {
    this.due.push(job);
    this.flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flush());
    return this.flushing;
  }

  private async flush(): Promise<void> {
    const jobs = this.due.splice(0);
    this.flushing = null;
    const keys = [this.keys.state, this.keys.enqueued, this.keys.moving, ...jobs.flatMap((j) => [this.keys.base + j.jobId, bodiesKey(this.keys, j.jobId)])];
    const args = jobs.flatMap((j) => [j.jobId, j.bytes, j.events]);
    await this.redis.eval(COUNT_DELIVERED, keys.length, ...keys, COUNTED_FIELD, DEAD_FIELD, ADDED_FIELD, ...args);
  }

  /** A failed attempt of a job's events; `dead` when they are dead letters now. */
  async failed(job: CountedJob, error: string, atUnixMs: number, dead: boolean): Promise<void> {
    const lastError = JSON.stringify({ message: error, at_unix_ms: atUnixMs });
    await this.redis.eval(COUNT_FAILED, 4, this.keys.state, this.keys.enqueued, this.keys.base + job.jobId, this.keys.moving, job.events, lastError, dead ? 1 : 0, job.jobId, DEAD_FIELD, ADDED_FIELD);
  }
}
