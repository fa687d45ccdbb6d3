import type { Redis } from 'ioredis';
import { isOutOfMemory } from './bullmq-jobs.js';
import type { SinkKeys } from './bullmq-keys.js';
import { OwedCounters } from './owed-counters.js';

/** The field of a job's hash that says its delivery is counted. */
const COUNTED_FIELD = 'weir_delivered';

/**
 * Counts a delivered job unless its hash says it was counted, and takes its bytes and
 * its `enqueued` member away in the same script.
 * KEYS: job hash, state hash, enqueued; ARGV: counted field, job id, bytes.
 */
const COUNT_DELIVERED = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HSETNX', KEYS[1], ARGV[1], '1') == 0 then return 0 end
redis.call('HINCRBY', KEYS[2], 'total_delivered', 1)
redis.call('HINCRBY', KEYS[2], 'bytes', -tonumber(ARGV[3]))
redis.call('ZREM', KEYS[3], ARGV[2])
return 1`;

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

  constructor(
    private readonly redis: Redis,
    private readonly keys: SinkKeys,
  ) {}

  async delivered(jobId: string, bytes: number): Promise<void> {
    try {
      await this.redis.eval(COUNT_DELIVERED, 3, this.keys.base + jobId, this.keys.state, this.keys.enqueued, COUNTED_FIELD, jobId, bytes);
    } catch (err) {
      if (!isOutOfMemory(err)) throw err;
      await this.owed.write(this.redis, this.keys.state, { total_delivered: 1, bytes: -bytes });
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
