import type { EntrySettlement } from '../contracts/outbox.js';

/**
 * What one delivery attempt means for the entry: acknowledged (any 2xx), retry later
 * (network error, timeout, 408, 429, 5xx; honouring Retry-After), or dead letter
 * (any other answer: the receiver will never take it as it is).
 */
export type DeliveryVerdict =
  | { kind: 'ack' }
  | { kind: 'retry'; error: string; retryAfterMs: number | null }
  | { kind: 'dead'; error: string };

export function verdictForStatus(status: number, retryAfter: string | null, nowMs: number): DeliveryVerdict {
  if (status >= 200 && status < 300) return { kind: 'ack' };
  const error = `receiver answered HTTP ${status}`;
  if (status === 408 || status === 429 || status >= 500) return { kind: 'retry', error, retryAfterMs: parseRetryAfter(retryAfter, nowMs) };
  return { kind: 'dead', error };
}

export function verdictForError(err: unknown): DeliveryVerdict {
  const code = (err as { cause?: { code?: string }; code?: string } | undefined)?.cause?.code ?? (err as { code?: string })?.code;
  const name = err instanceof Error ? err.name : '';
  const error = name === 'TimeoutError' || name === 'AbortError' ? 'receiver did not answer in time' : `network error${code ? ` ${code}` : ''}`;
  return { kind: 'retry', error, retryAfterMs: null };
}

/** Retry-After as delay-seconds or an HTTP date; null when absent or unreadable. */
function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - nowMs);
}

/**
 * Exponential backoff with full jitter: a uniform delay in [0, min(cap, base·2^attempt)].
 * A Retry-After from the receiver wins when it asks for longer.
 */
export function retryDelayMs(attempt: number, retryAfterMs: number | null, opts: { baseMs: number; capMs: number }, random = Math.random): number {
  const ceiling = Math.min(opts.capMs, opts.baseMs * 2 ** Math.min(attempt, 30));
  const jittered = Math.floor(random() * ceiling);
  return retryAfterMs !== null ? Math.max(retryAfterMs, jittered) : jittered;
}

/** What becomes of one entry of a failed attempt: due again at a time, or a dead letter. */
export type FailureSettlement = Exclude<EntrySettlement, { kind: 'ack' }>;

export interface RetryPolicy {
  /** Seconds after its append (or its last replay) that an entry stops being retried. */
  retryForS: number;
  backoff: { baseMs: number; capMs: number };
}

/**
 * The settlement of one entry of a failed attempt. A replay starts a new retry window:
 * an old event would otherwise go back after one failed attempt.
 */
export function settleFailure(
  verdict: Exclude<DeliveryVerdict, { kind: 'ack' }>,
  entry: { attempts: number; enqueued_at_unix_ms: number; replayed_at_unix_ms: number | null },
  policy: RetryPolicy,
  nowMs: number,
): FailureSettlement {
  if (verdict.kind === 'dead') return verdict;
  const expired = nowMs - (entry.replayed_at_unix_ms ?? entry.enqueued_at_unix_ms) >= policy.retryForS * 1000;
  if (expired) return { kind: 'dead', error: `${verdict.error}; gave up after ${policy.retryForS} s` };
  return { kind: 'retry', error: verdict.error, notBeforeUnixMs: nowMs + retryDelayMs(entry.attempts, verdict.retryAfterMs, policy.backoff) };
}
