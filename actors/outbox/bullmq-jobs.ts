import type { Job, JobsOptions } from 'bullmq';
import type { OutboxAppend, OutboxEntry } from '../contracts/outbox.js';
import { WeirError } from '../errors/weir-error.js';

/**
 * What a sink's BullMQ job carries: the envelopes of one append, in bus order, up to the
 * sink's batch_size. They are delivered in one request and settled together, so under a
 * backlog BullMQ moves one job per request instead of one per event.
 */
export interface JobData {
  events: OutboxAppend[];
  replayed_at_unix_ms: number | null;
}

/** A job written by a weir that kept one envelope per job, delivered as a job of one. */
interface SingleEventData {
  event_id: string;
  sequence: number;
  body: string;
  replayed_at_unix_ms: number | null;
}

export type OutboxJob = Job<JobData, string, string>;

/** The error a retried delivery fails its job with; the worker's backoff strategy delays the job until `notBeforeUnixMs`. */
export class RetryAt extends WeirError<'DELIVERY_RETRY'> {
  constructor(
    message: string,
    readonly notBeforeUnixMs: number,
  ) {
    super('DELIVERY_RETRY', message);
  }
}

/** Redis's OOM reply, alone or as the cause of a MULTI's EXECABORT. */
export function isOutOfMemory(err: unknown): boolean {
  const { message, previousErrors } = (err ?? {}) as { message?: string; previousErrors?: { message?: string }[] };
  return [message, ...(previousErrors ?? []).map((e) => e.message)].some((m) => m?.startsWith('OOM '));
}

export function jobData(events: readonly OutboxAppend[], replayedAtUnixMs: number | null = null): JobData {
  return { events: [...events], replayed_at_unix_ms: replayedAtUnixMs };
}

/** The envelopes of a job's data, whichever shape it was written in. */
export function eventsOf(data: JobData | SingleEventData): OutboxAppend[] {
  if ('events' in data) return data.events;
  return [{ id: data.event_id, sequence: data.sequence, body: data.body }];
}

export function bytesOf(events: readonly OutboxAppend[]): number {
  return events.reduce((n, e) => n + Buffer.byteLength(e.body), 0);
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

/** A job's envelopes as pending entries: they share its append time, attempts and replay. */
export function toEntries(job: OutboxJob): OutboxEntry[] {
  return eventsOf(job.data).map((e) => ({
    ...e,
    enqueued_at_unix_ms: job.timestamp,
    attempts: job.attemptsMade,
    replayed_at_unix_ms: job.data.replayed_at_unix_ms,
  }));
}
