import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { DeadLetter } from '../contracts/outbox.js';
import { toEntry, type JobData, type OutboxJob } from './bullmq-jobs.js';
import { jobIdFor, type SinkKeys } from './bullmq-keys.js';

type OutboxQueue = Queue<JobData, string, string>;

/** A Redis outbox's dead letters are BullMQ's failed set (UnrecoverableError, removeOnFail off), oldest first. */
export async function listBullmqDeadLetters(queue: OutboxQueue, limit: number): Promise<DeadLetter[]> {
  const jobs = (await queue.getJobs(['failed'], 0, limit - 1, true)) as OutboxJob[];
  return jobs.map((job) => ({ ...toEntry(job), error: job.failedReason, dead_at_unix_ms: job.finishedOn ?? 0 }));
}

/**
 * Makes dead letters pending again (all, or those of `ids`), attempts at 0, stamped
 * with the replay's time; each is back among the `enqueued` members with its append time.
 */
export async function replayBullmqDeadLetters(queue: OutboxQueue, redis: Redis, keys: SinkKeys, ids?: readonly string[]): Promise<number> {
  const failed = (await queue.getJobs(['failed'], 0, -1, true)) as OutboxJob[];
  const wanted = ids ? new Set(ids.map(jobIdFor)) : null;
  const chosen = failed.filter((job) => !wanted || wanted.has(job.id!));
  const now = Date.now();
  for (const job of chosen) {
    // Data first: a crash before the retry leaves a dead letter that a new replay restamps.
    await job.updateData({ ...job.data, replayed_at_unix_ms: now });
    await job.retry('failed', { resetAttemptsMade: true });
    await redis.zadd(keys.enqueued, 'NX', job.timestamp, job.id!);
  }
  return chosen.length;
}
