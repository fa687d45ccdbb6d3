import type { Job, JobsOptions } from 'bullmq';
import type { OutboxAppend, OutboxEntry } from '../contracts/outbox.js';
import { WeirError } from '../errors/weir-error.js';
import { jobIdFor } from './bullmq-keys.js';

/**
 * What a sink's BullMQ job carries: the events of one append, in bus order, up to the
 * sink's batch_size. They are delivered in one request and settled together, so under a
 * backlog BullMQ moves one job per request instead of one per event. The bodies of a
 * job over INLINE_MAX_BYTES are kept beside it (bullmq-bodies.ts).
 */
export interface JobData {
  events: JobEvent[];
  replayed_at_unix_ms: number | null;
}

export type JobEvent = Pick<OutboxAppend, 'id' | 'sequence'> & { body?: string };

/** A job written by a weir that kept one envelope per job, delivered as a job of one. */
interface SingleEventData {
  event_id: string;
  sequence: number;
  body: string;
  replayed_at_unix_ms: number | null;
}

export type OutboxJob = Job<JobData, string, string>;

/** The events of one job, and its id (jobIdFor its first event). */
export interface JobGroup {
  id: string;
  events: readonly OutboxAppend[];
}

/** A job's events with the time they were appended (the job's timestamp and `enqueued` score). */
export interface TimedGroup extends JobGroup {
  atUnixMs: number;
}

export function timed(groups: readonly JobGroup[], atUnixMs: number): TimedGroup[] {
  return groups.map((g) => ({ ...g, atUnixMs }));
}

/** An append's entries in jobs of up to `size`, each named by its first event. */
export function groupsOf(entries: readonly OutboxAppend[], size: number): JobGroup[] {
  const groups: JobGroup[] = [];
  for (let from = 0; from < entries.length; from += size) {
    const events = entries.slice(from, from + size);
    groups.push({ id: jobIdFor(events[0]!.id), events });
  }
  return groups;
}

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

/** A job's bodies up to this many bytes stay in its data: beside it they cost Redis more than JSON within JSON costs. */
export const INLINE_MAX_BYTES = 16 * 1024;

/** A job's data: its events' ids and sequences, and their bodies when `inline`. */
export function jobData(events: readonly JobEvent[], replayedAtUnixMs: number | null = null, inline = false): JobData {
  return { events: events.map((e) => (inline ? { id: e.id, sequence: e.sequence, body: e.body } : { id: e.id, sequence: e.sequence })), replayed_at_unix_ms: replayedAtUnixMs };
}

/** Whether a job's data holds its bodies (a small job's, or one an earlier weir wrote). */
export function holdsBodies(data: JobData | SingleEventData): boolean {
  return eventsOf(data)[0]?.body !== undefined;
}

/** The events of a job's data, whichever shape it was written in. */
export function eventsOf(data: JobData | SingleEventData): JobEvent[] {
  if ('events' in data) return data.events;
  return [{ id: data.event_id, sequence: data.sequence, body: data.body }];
}

/** A job's envelopes, their bodies from `stored` (bullmq-bodies.ts) or from its data; null when neither holds them. */
export function envelopesOf(data: JobData | SingleEventData, stored: string | null): OutboxAppend[] | null {
  const events = eventsOf(data);
  const bodies = stored ? stored.split('\n') : events.map((e) => e.body);
  if (bodies.length !== events.length || bodies.some((b) => b === undefined)) return null;
  return events.map((e, i) => ({ id: e.id, sequence: e.sequence, body: bodies[i]! }));
}

export function bytesOf(events: readonly OutboxAppend[]): number {
  return events.reduce((n, e) => n + Buffer.byteLength(e.body), 0);
}

/**
 * How long a completed job (and so its id) is kept: adding its id again within that
 * time adds nothing. An append that timed out on a hung Redis and ran once it woke is
 * added again by the outage journal's move right after Redis answers, within a second
 * or two: a minute covers it with room. (A move cut short by a crash does not rely on
 * it: journaled-outbox.ts marks what it adds.)
 */
export const KEEP_COMPLETED_S = 60;

export function jobOpts(jobId: string, now: number): JobsOptions {
  return {
    jobId,
    timestamp: now,
    // Retried until the delivery dead-letters it (retry_for_s, the receiver's answer), not a count.
    attempts: Number.MAX_SAFE_INTEGER,
    backoff: { type: 'retry-at' },
    removeOnComplete: { age: KEEP_COMPLETED_S },
    removeOnFail: false,
    stackTraceLimit: 0,
  };
}

/**
 * A job's envelopes as pending entries: they share its append time, attempts and replay;
 * null when its bodies are missing (envelopesOf).
 */
export function toEntries(job: OutboxJob, stored: string | null): OutboxEntry[] | null {
  const { timestamp, attemptsMade, data } = job;
  return envelopesOf(data, stored)?.map((e) => ({ id: e.id, sequence: e.sequence, body: e.body, enqueued_at_unix_ms: timestamp, attempts: attemptsMade, replayed_at_unix_ms: data.replayed_at_unix_ms })) ?? null;
}
