import type { Redis } from 'ioredis';
import { isOutOfMemory } from './bullmq-jobs.js';
import type { SinkKeys } from './bullmq-keys.js';
import { OwedCounters } from './owed-counters.js';

/** The fields of a job's hash: its delivery is counted; its dead letters are counted (a replay clears it); how many of its events the embedded store counted. */
const COUNTED_FIELD = 'weir_delivered';
export const DEAD_FIELD = 'weir_dead';
const CLAIMED_FIELD = 'weir_claimed';

/**
 * How long a counted job's id is kept after BullMQ removed the job: the embedded store
 * claims the count of an event that Redis may hold too (claimCounts) as soon as Redis
 * answers again, and a job delivered and removed before that claim must still tell it
 * was counted.
 */
export const COUNTED_KEEP_MS = 10 * 60_000;

/**
 * Counts each delivered job unless its hash says it was counted: its events as
 * delivered (less those the embedded store claimed), and out of `pending` (or of
 * `dead_letters`, for a job counted dead whose move to the failed set never happened);
 * its bytes, its `enqueued` member and its `counted` member (ids older than the keep
 * time leave) go in the same script.
 * KEYS: state hash, enqueued, counted, then the job hashes; ARGV: the fields counted,
 * dead and claimed, the time and the keep time, then job id, bytes and events for each job.
 */
const COUNT_DELIVERED = `
local delivered, bytes, pending, dead = 0, 0, 0, 0
local now = tonumber(ARGV[4])
for i = 4, #KEYS do
  local a = 3 * (i - 4) + 6
  local id, size, n = ARGV[a], tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  if redis.call('EXISTS', KEYS[i]) == 1 and redis.call('HSETNX', KEYS[i], ARGV[1], '1') == 1 then
    delivered = delivered + n - tonumber(redis.call('HGET', KEYS[i], ARGV[3]) or '0')
    bytes = bytes + size
    if redis.call('HEXISTS', KEYS[i], ARGV[2]) == 1 then dead = dead + n else pending = pending + n end
    redis.call('ZREM', KEYS[2], id)
    redis.call('ZADD', KEYS[3], now, id)
  end
end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[5]))
-- Lua writes a negated 0 as '-0', which HINCRBY refuses.
for field, n in pairs({total_delivered = delivered, bytes = -bytes, pending = -pending, dead_letters = -dead}) do
  if n ~= 0 then redis.call('HINCRBY', KEYS[1], field, n) end
end
return delivered`;

/**
 * A failed attempt of a job's events: total_failed and last_error; a dead letter moves
 * them from `pending` to `dead_letters` once per job, and leaves `enqueued`.
 * KEYS: state hash, enqueued, job hash; ARGV: events, last_error, dead (1/0), job id, dead field.
 */
const COUNT_FAILED = `
redis.call('HINCRBY', KEYS[1], 'total_failed', ARGV[1])
redis.call('HSET', KEYS[1], 'last_error', ARGV[2])
if ARGV[3] == '1' and redis.call('EXISTS', KEYS[3]) == 1 and redis.call('HSETNX', KEYS[3], ARGV[5], '1') == 1 then
  redis.call('HINCRBY', KEYS[1], 'pending', -tonumber(ARGV[1]))
  redis.call('HINCRBY', KEYS[1], 'dead_letters', ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[4])
end`;

/**
 * For each event: marks it counted on its job's hash (1), or tells its job was counted
 * already (0); a job Redis does not hold has no copy to count (1) unless it was counted
 * and removed within the keep time (0).
 * KEYS: counted, then the job hash of each event; ARGV: the fields counted and claimed,
 * then the event ids, then their job ids.
 */
const CLAIM_COUNTS = `
local out = {}
local n = #KEYS - 1
for i = 1, n do
  local key = KEYS[i + 1]
  if redis.call('EXISTS', key) == 0 then
    if redis.call('ZSCORE', KEYS[1], ARGV[n + 2 + i]) then out[i] = 0 else out[i] = 1 end
  elseif redis.call('HEXISTS', key, ARGV[1]) == 1 or redis.call('HSETNX', key, 'c:' .. ARGV[i + 2], '1') == 0 then
    out[i] = 0
  else
    redis.call('HINCRBY', key, ARGV[2], 1)
    out[i] = 1
  end
end
return out`;

/**
 * For each event id, with the id of the job that holds it: true when the caller's copy
 * of the event is the one to count (see SpillOutbox.maybeInBoth).
 */
export async function claimCounts(redis: Redis, keys: SinkKeys, events: readonly { id: string; jobId: string }[]): Promise<boolean[]> {
  const found = (await redis.eval(
    CLAIM_COUNTS,
    events.length + 1,
    keys.counted,
    ...events.map((e) => keys.base + e.jobId),
    COUNTED_FIELD,
    CLAIMED_FIELD,
    ...events.map((e) => e.id),
    ...events.map((e) => e.jobId),
  )) as number[];
  return found.map((n) => n === 1);
}

/** A job as the counters see it. */
export interface CountedJob {
  jobId: string;
  bytes: number;
  events: number;
}

/**
 * The counters a sink's delivery keeps in its `state` hash, written by whichever
 * process delivers. A delivery is counted before BullMQ completes the job, once per
 * job: a worker that dies between the two leaves the job to be delivered again by
 * stalled-job recovery, and the mark on the job's hash keeps it from counting twice;
 * the completion removes the job and the mark with it. A count Redis refuses for lack
 * of memory is owed and added to the next one this process writes.
 */
export class DeliveryCounts {
  private readonly owed = new OwedCounters();
  private due: CountedJob[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly redis: Redis,
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
    const keys = [this.keys.state, this.keys.enqueued, this.keys.counted, ...jobs.map((j) => this.keys.base + j.jobId)];
    const args = jobs.flatMap((j) => [j.jobId, j.bytes, j.events]);
    try {
      await this.redis.eval(COUNT_DELIVERED, keys.length, ...keys, COUNTED_FIELD, DEAD_FIELD, CLAIMED_FIELD, Date.now(), COUNTED_KEEP_MS, ...args);
    } catch (err) {
      if (!isOutOfMemory(err)) throw err;
      const sum = (f: (j: CountedJob) => number): number => jobs.reduce((n, j) => n + f(j), 0);
      await this.owed.write(this.redis, this.keys.state, { total_delivered: sum((j) => j.events), bytes: -sum((j) => j.bytes), pending: -sum((j) => j.events) });
      return;
    }
    if (this.owed.any) await this.owed.write(this.redis, this.keys.state, {});
  }

  /** A failed attempt of a job's events; `dead` when they are dead letters now. */
  async failed(job: CountedJob, error: string, atUnixMs: number, dead: boolean): Promise<void> {
    const lastError = JSON.stringify({ message: error, at_unix_ms: atUnixMs });
    try {
      await this.redis.eval(COUNT_FAILED, 3, this.keys.state, this.keys.enqueued, this.keys.base + job.jobId, job.events, lastError, dead ? 1 : 0, job.jobId, DEAD_FIELD);
    } catch (err) {
      if (!isOutOfMemory(err)) throw err;
      await this.owed.write(this.redis, this.keys.state, { total_failed: job.events, ...(dead && { pending: -job.events, dead_letters: job.events }) });
      return;
    }
    if (this.owed.any) await this.owed.write(this.redis, this.keys.state, {});
  }
}
