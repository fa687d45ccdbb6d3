import type { Job, JobsOptions } from 'bullmq';
import type { OutboxAppend, OutboxEntry } from '../contracts/outbox.js';

/** What a sink's BullMQ job carries: one envelope. */
export interface JobData {
  event_id: string;
  sequence: number;
  body: string;
  replayed_at_unix_ms: number | null;
}

export type OutboxJob = Job<JobData, string, string>;

/** The error `retry` fails a job with; the worker's backoff strategy delays the job until `notBeforeUnixMs`. */
export class RetryAt extends Error {
  constructor(
    message: string,
    readonly notBeforeUnixMs: number,
  ) {
    super(message);
  }
}

/** Redis's OOM reply, alone or as the cause of a MULTI's EXECABORT. */
export function isOutOfMemory(err: unknown): boolean {
  const { message, previousErrors } = (err ?? {}) as { message?: string; previousErrors?: { message?: string }[] };
  return [message, ...(previousErrors ?? []).map((e) => e.message)].some((m) => m?.startsWith('OOM '));
}

export function jobData(e: OutboxAppend): JobData {
  return { event_id: e.id, sequence: e.sequence, body: e.body, replayed_at_unix_ms: null };
}

export function jobOpts(jobId: string, now: number): JobsOptions {
  return {
    jobId,
    timestamp: now,
    // Retried until the connector dead-letters it; the connector decides, not a count.
    attempts: Number.MAX_SAFE_INTEGER,
    backoff: { type: 'retry-at' },
    removeOnComplete: true,
    removeOnFail: false,
    stackTraceLimit: 0,
  };
}

/**
 * A job move under `token`'s lock, or with none once that lock has expired: a lease
 * held past lockDuration (a POST slower than that, a Redis outage that outlasted it)
 * would otherwise never settle until a restart. Only this node leases its queues, so an
 * expired lock was ours; a lock with another token is left alone.
 */
export async function moveLocked<T>(token: string, move: (lock: string) => Promise<T>): Promise<T> {
  try {
    return await move(token);
  } catch (err) {
    if (!(err instanceof Error) || !err.message.startsWith('Missing lock for job')) throw err;
    // BullMQ's scripts skip the lock check for the token "0".
    return move('0');
  }
}

export function toEntry(job: OutboxJob): OutboxEntry {
  return {
    id: job.data.event_id,
    sequence: job.data.sequence,
    body: job.data.body,
    enqueued_at_unix_ms: job.timestamp,
    attempts: job.attemptsMade,
    replayed_at_unix_ms: job.data.replayed_at_unix_ms,
  };
}
