import type { Queue } from 'bullmq';
import type { RedisClient } from '../redis/redis-client.js';
import type { DeadLetter, OutboxAppend } from '../contracts/outbox.js';
import { ADDED_FIELD, DEAD_FIELD } from './bullmq-counts.js';
import { envelopesOf, eventsOf, holdsBodies, jobData, jobOpts, toEntries, type JobData, type JobEvent, type OutboxJob } from './bullmq-jobs.js';
import { joinBodies, readBodies, writeBodies } from './bullmq-bodies.js';
import { replayJobIdFor, type SinkKeys } from './bullmq-keys.js';

type OutboxQueue = Queue<JobData, string, string>;

/** A Redis outbox's dead letters: the events of BullMQ's failed set (UnrecoverableError, removeOnFail off), oldest first. */
export async function listBullmqDeadLetters(queue: OutboxQueue, redis: RedisClient, keys: SinkKeys, limit: number): Promise<DeadLetter[]> {
  // Every job holds at least one event: `limit` jobs hold enough.
  const jobs = (await queue.getJobs(['failed'], 0, limit - 1, true)) as OutboxJob[];
  const stored = await readBodies(redis, keys, jobs.map((j) => j.id!));
  return jobs.flatMap((job, i) => (toEntries(job, stored[i]!) ?? []).map((e) => ({ ...e, error: job.failedReason, dead_at_unix_ms: job.finishedOn ?? 0 }))).slice(0, limit);
}

/**
 * Makes dead letters pending again (all, or those of `ids`), attempts at 0, stamped
 * with the replay's time, and back among the `enqueued` members with their append time.
 * A job whose events are all chosen is retried; the chosen events of a job that keeps
 * others go out as a job of their own, and the job keeps the rest.
 */
export async function replayBullmqDeadLetters(queue: OutboxQueue, redis: RedisClient, keys: SinkKeys, ids?: readonly string[]): Promise<number> {
  const failed = (await queue.getJobs(['failed'], 0, -1, true)) as OutboxJob[];
  const stored = await readBodies(redis, keys, failed.map((j) => j.id!));
  const wanted = ids ? new Set(ids) : null;
  const now = Date.now();
  let replayed = 0;
  for (const [i, job] of failed.entries()) {
    const envelopes = envelopesOf(job.data, stored[i]!);
    const events: JobEvent[] = envelopes ?? eventsOf(job.data);
    let chosen = wanted ? events.filter((e) => wanted.has(e.id)) : events;
    if (chosen.length === 0) continue;
    // A job without its bodies cannot be split: it goes back whole, and its worker waits for them again.
    if (!envelopes) chosen = events;
    const counted = (jobId: string): Promise<unknown> =>
      redis
        .multi()
        .hdel(keys.base + jobId, DEAD_FIELD)
        .hset(keys.base + jobId, ADDED_FIELD, '1')
        .zadd(keys.enqueued, 'NX', job.timestamp, jobId)
        .hincrby(keys.state, 'pending', chosen.length)
        .hincrby(keys.state, 'dead_letters', -chosen.length)
        .exec();
    if (chosen.length === events.length) await replayWhole(job, events, now, holdsBodies(job.data), counted);
    else await replayApart(queue, redis, keys, job, envelopes!, chosen as OutboxAppend[], now, counted);
    replayed += chosen.length;
  }
  return replayed;
}

/**
 * Counted before the retry: a worker may deliver the job as soon as it is back, and its
 * count must find the dead mark gone and the events pending.
 */
async function replayWhole(job: OutboxJob, events: JobEvent[], now: number, inline: boolean, counted: (jobId: string) => Promise<unknown>): Promise<void> {
  await job.updateData(jobData(events, now, inline));
  await counted(job.id!);
  await job.retry('failed', { resetAttemptsMade: true });
}

async function replayApart(
  queue: OutboxQueue,
  redis: RedisClient,
  keys: SinkKeys,
  job: OutboxJob,
  events: OutboxAppend[],
  chosen: OutboxAppend[],
  now: number,
  counted: (jobId: string) => Promise<unknown>,
): Promise<void> {
  const id = replayJobIdFor(chosen[0]!.id, now.toString(36));
  // Added first: a crash before the rest is written back leaves the chosen ones delivered and dead, never neither.
  await writeBodies(redis, keys, [{ id, stored: joinBodies(chosen) }]);
  await queue.add('envelope', jobData(chosen, now), jobOpts(id, job.timestamp));
  const kept = new Set(chosen.map((e) => e.id));
  const rest = events.filter((e) => !kept.has(e.id));
  await writeBodies(redis, keys, [{ id: job.id!, stored: joinBodies(rest) }]);
  await job.updateData(jobData(rest, job.data.replayed_at_unix_ms));
  await counted(id);
}
