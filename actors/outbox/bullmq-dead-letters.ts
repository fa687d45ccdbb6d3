import type { Queue } from 'bullmq';
import type { RedisClient } from '../redis/redis-client.js';
import type { DeadLetter, OutboxAppend } from '../contracts/outbox.js';
import { ADDED_FIELD, DEAD_FIELD } from './bullmq-counts.js';
import { envelopesOf, eventsOf, holdsBodies, jobData, jobOpts, toEntries, type JobData, type JobEvent, type OutboxJob } from './bullmq-jobs.js';
import { joinBodies, readBodies, writeBodies } from './bullmq-bodies.js';
import { replayJobIdFor, type SinkKeys } from './bullmq-keys.js';

/** Where a sink's dead letters are: its queue, its Redis and its keys. */
export interface DeadLetterQueue {
  queue: Queue<JobData, string, string>;
  redis: RedisClient;
  keys: SinkKeys;
}

/** The jobs of BullMQ's failed set from its start to `end`, each with its stored bodies. */
async function deadJobs({ queue, redis, keys }: DeadLetterQueue, end: number): Promise<[OutboxJob, string | null][]> {
  const jobs = (await queue.getJobs(['failed'], 0, end, true)) as OutboxJob[];
  const stored = await readBodies(redis, keys, jobs.map((j) => j.id!));
  return jobs.map((job, i) => [job, stored[i]!]);
}

/** A Redis outbox's dead letters: the events of BullMQ's failed set (UnrecoverableError, removeOnFail off), oldest first. */
export async function listBullmqDeadLetters(q: DeadLetterQueue, limit: number): Promise<DeadLetter[]> {
  // Every job holds at least one event: `limit` jobs hold enough.
  const jobs = await deadJobs(q, limit - 1);
  return jobs.flatMap(([job, stored]) => (toEntries(job, stored) ?? []).map((e) => ({ ...e, error: job.failedReason, dead_at_unix_ms: job.finishedOn ?? 0 }))).slice(0, limit);
}

/**
 * Makes dead letters pending again (all, or those of `ids`), attempts at 0, stamped
 * with the replay's time, and back among the `enqueued` members with their append time.
 * A job whose events are all chosen is retried; the chosen events of a job that keeps
 * others go out as a job of their own, and the job keeps the rest.
 */
export async function replayBullmqDeadLetters(q: DeadLetterQueue, ids?: readonly string[]): Promise<number> {
  const { redis, keys } = q;
  const wanted = ids ? new Set(ids) : null;
  const now = Date.now();
  let replayed = 0;
  for (const [job, stored] of await deadJobs(q, -1)) {
    const envelopes = envelopesOf(job.data, stored);
    const events: JobEvent[] = envelopes ?? eventsOf(job.data);
    const picked = wanted ? events.filter((e) => wanted.has(e.id)) : events;
    if (picked.length === 0) continue;
    // A job without its bodies cannot be split: it goes back whole (dead again if they are still missing).
    const chosen = envelopes ? picked : events;
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
    else await replayApart(q, job, envelopes!, chosen as OutboxAppend[], now, counted);
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

/** The chosen events go out as a job of their own, their bodies beside it; the job keeps the rest, theirs beside it too. */
async function replayApart({ queue, redis, keys }: DeadLetterQueue, job: OutboxJob, events: OutboxAppend[], chosen: OutboxAppend[], now: number, counted: (jobId: string) => Promise<unknown>): Promise<void> {
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
