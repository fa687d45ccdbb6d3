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

/** The error a retried delivery fails its job with; the worker's backoff strategy delays the job until `notBeforeUnixMs`. */
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
    // Retried until the delivery dead-letters it (retry_for_s, the receiver's answer), not a count.
    attempts: Number.MAX_SAFE_INTEGER,
    backoff: { type: 'retry-at' },
    removeOnComplete: true,
    removeOnFail: false,
    stackTraceLimit: 0,
  };
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
