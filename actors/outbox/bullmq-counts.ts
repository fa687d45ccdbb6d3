import type { Redis } from 'ioredis';
import { isOutOfMemory } from './bullmq-jobs.js';
import type { SinkKeys } from './bullmq-keys.js';
import { OwedCounters } from './owed-counters.js';

/** The field of a job's hash that says its delivery is counted. */
const COUNTED_FIELD = 'weir_delivered';

/**
 * Counts each delivered job unless its hash says it was counted, and takes its bytes
 * and its `enqueued` member away in the same script.
 * KEYS: state hash, enqueued, then the job hashes; ARGV: counted field, then job id and
 * bytes for each job.
 */
const COUNT_DELIVERED = `
local delivered, bytes = 0, 0
for i = 3, #KEYS do
  local id, size = ARGV[2 * (i - 2)], tonumber(ARGV[2 * (i - 2) + 1])
  if redis.call('EXISTS', KEYS[i]) == 1 and redis.call('HSETNX', KEYS[i], ARGV[1], '1') == 1 then
    delivered = delivered + 1
    bytes = bytes + size
    redis.call('ZREM', KEYS[2], id)
  end
end
if delivered > 0 then
  redis.call('HINCRBY', KEYS[1], 'total_delivered', delivered)
  redis.call('HINCRBY', KEYS[1], 'bytes', -bytes)
end
return delivered`;

/**
 * Marks each job as counted (1), or tells it was counted already (0); a job Redis does
 * not hold has no copy to count (1). KEYS: the job hashes; ARGV: the counted field.
 */
const CLAIM_COUNTS = `
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 0 then out[i] = 1 else out[i] = redis.call('HSETNX', key, ARGV[1], '1') end
end
return out`;

/** For each job id: true when the caller's copy of the event is the one to count (see SpillOutbox.maybeInBoth). */
export async function claimCounts(redis: Redis, keys: SinkKeys, jobIds: readonly string[]): Promise<boolean[]> {
  const found = (await redis.eval(CLAIM_COUNTS, jobIds.length, ...jobIds.map((id) => keys.base + id), COUNTED_FIELD)) as number[];
  return found.map((n) => n === 1);
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
  private due: { jobId: string; bytes: number }[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly keys: SinkKeys,
  ) {}

  /**
   * Counts a delivered job. The counts asked for in one turn of the event loop (the jobs
   * of one request, settled together) go to Redis in one script.
   */
  delivered(jobId: string, bytes: number): Promise<void> {
    this.due.push({ jobId, bytes });
    this.flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flush());
    return this.flushing;
  }

  private async flush(): Promise<void> {
    const jobs = this.due.splice(0);
    this.flushing = null;
    const keys = [this.keys.state, this.keys.enqueued, ...jobs.map((j) => this.keys.base + j.jobId)];
    try {
      await this.redis.eval(COUNT_DELIVERED, keys.length, ...keys, COUNTED_FIELD, ...jobs.flatMap((j) => [j.jobId, j.bytes]));
    } catch (err) {
      if (!isOutOfMemory(err)) throw err;
      const bytes = jobs.reduce((n, j) => n + j.bytes, 0);
      await this.owed.write(this.redis, this.keys.state, { total_delivered: jobs.length, bytes: -bytes });
      return;
    }
    if (this.owed.any) await this.owed.write(this.redis, this.keys.state, {});
  }

  /** A failed attempt: total_failed and last_error; a dead letter leaves the pending entries' `enqueued` too. */
  async failed(error: string, atUnixMs: number, deadJobId: string | null): Promise<void> {
    await this.owed.write(this.redis, this.keys.state, { total_failed: 1 }, (m) => {
      m.hset(this.keys.state, 'last_error', JSON.stringify({ message: error, at_unix_ms: atUnixMs }));
      if (deadJobId !== null) m.zrem(this.keys.enqueued, deadJobId);
    });
  }
}
