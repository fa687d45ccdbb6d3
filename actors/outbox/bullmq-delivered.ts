import type { Redis } from 'ioredis';
import { isOutOfMemory, moveLocked, type OutboxJob } from './bullmq-jobs.js';
import type { SinkKeys } from './bullmq-keys.js';

/** The field of a job's hash that says its delivery is counted. */
const COUNTED_FIELD = 'weir_delivered';

/**
 * Adds a delivered job to total_delivered unless its hash says it was counted, and says
 * so in the same script: -1 the job is gone, 0 counted before, 1 counted now.
 */
const COUNT_ONCE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HSETNX', KEYS[1], ARGV[1], '1') == 0 then return 0 end
redis.call('HINCRBY', KEYS[2], 'total_delivered', 1)
return 1`;

/**
 * `counted`: now or by an earlier ack of the job. `gone`: the job was completed (an
 * earlier ack counted it first) or Redis lost it. `refused`: Redis is out of memory and
 * refused the mark; the count is the caller's to keep.
 */
type DeliveryCount = 'counted' | 'gone' | 'refused';

/**
 * Counts the delivery of a job once, however often its ack is made. It runs before the
 * job's completion, which removes the job: a completion Redis ran but never answered
 * (an outage; ioredis sends the command again once Redis is back, to a job gone by
 * then), or a stop or crash between the two that leaves the job to be delivered again,
 * would otherwise count it never, or twice.
 */
async function countDelivered(redis: Redis, keys: SinkKeys, jobId: string): Promise<DeliveryCount> {
  try {
    const found = (await redis.eval(COUNT_ONCE, 2, keys.base + jobId, keys.state, COUNTED_FIELD)) as number;
    return found === -1 ? 'gone' : 'counted';
  } catch (err) {
    if (isOutOfMemory(err)) return 'refused';
    throw err;
  }
}

/** BullMQ's answer to a move of a job it does not hold (ErrorCode.JobNotExist). */
function isJobGone(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('Missing key for job');
}

/** A leased job. `uncounted`: Redis refused to count its delivery (out of memory); its completion owes the count. */
export interface DeliveredJob {
  job: OutboxJob;
  uncounted?: boolean;
}

/**
 * Counts the delivery of a leased job (unless `count` is false), then completes it.
 * A completion Redis ran but never answered finds the job gone when made again: it is
 * done, and was counted before it.
 */
export async function completeDelivered(p: { redis: Redis; keys: SinkKeys; token: string }, l: DeliveredJob, count: boolean): Promise<void> {
  if (count) {
    const counted = await countDelivered(p.redis, p.keys, l.job.id!);
    if (counted !== 'gone') l.uncounted = counted === 'refused';
  }
  await moveLocked(p.token, (lock) => l.job.moveToCompleted('delivered', lock, false)).catch((err: unknown) => {
    if (!isJobGone(err)) throw err;
  });
}
