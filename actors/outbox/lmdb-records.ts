import type { Database, Key } from 'lmdb';
import type { DeadLetter, OutboxEntry, OutboxState, ReplayGap, WriteBlockReason } from '../contracts/outbox.js';
import { embeddedState, type EmbeddedCounts } from './embedded-state.js';

/**
 * The layout of one sink's LMDB sub-database. Keys are ordered-binary arrays, so the
 * entries of each kind sit together in position order:
 *   ['p', pos] → StoredEntry   pending entries, pos = append order
 *   ['r', pos] → RetryMark     failed attempts and due time of a pending entry
 *   ['d', pos] → StoredDead    dead letters (keeping their position for a replay)
 *   'counters' → Counters      changed in the same transaction as what they count
 *   'gaps'     → ReplayGap[]   the most recent missed ranges
 */
export type SinkDb = Database<unknown, Key>;

/** Above every position; positions are append counters. */
const MAX_POS = Number.MAX_SAFE_INTEGER;

export const entryKey = (pos: number): Key => ['p', pos];
export const retryKey = (pos: number): Key => ['r', pos];
export const deadKey = (pos: number): Key => ['d', pos];
export const COUNTERS_KEY = 'counters';
export const GAPS_KEY = 'gaps';

export const range = (kind: 'p' | 'r' | 'd') => ({ start: [kind, 0], end: [kind, MAX_POS] });

export const positionOf = (key: Key): number => (key as [string, number])[1];

export interface StoredEntry {
  id: string;
  sequence: number;
  body: string;
  enqueued_at_unix_ms: number;
  replayed_at_unix_ms: number | null;
}

export interface RetryMark {
  attempts: number;
  not_before_unix_ms: number;
}

export interface StoredDead extends StoredEntry {
  attempts: number;
  error: string;
  dead_at_unix_ms: number;
}

export type Counters = EmbeddedCounts;

export function readCounters(db: SinkDb): Counters {
  const stored = db.get(COUNTERS_KEY) as Partial<Counters> | undefined;
  return {
    pending: 0,
    dead_letters: 0,
    bytes: 0,
    total_delivered: 0,
    total_failed: 0,
    replay_gaps: 0,
    last_error: null,
    ...stored,
  };
}

export function readGaps(db: SinkDb): ReplayGap[] {
  return (db.get(GAPS_KEY) as ReplayGap[] | undefined) ?? [];
}

export function toEntry(e: StoredEntry, attempts: number): OutboxEntry {
  return {
    id: e.id,
    sequence: e.sequence,
    body: e.body,
    enqueued_at_unix_ms: e.enqueued_at_unix_ms,
    attempts,
    replayed_at_unix_ms: e.replayed_at_unix_ms,
  };
}

export function toDeadLetter(d: StoredDead): DeadLetter {
  return { ...toEntry(d, d.attempts), error: d.error, dead_at_unix_ms: d.dead_at_unix_ms };
}

/**
 * A sink's state as its committed records say; shared by the live store and the offline
 * reader. The live store passes its counters and gaps, which hold a gap that a full
 * disk kept from being committed yet.
 */
export function sinkState(db: SinkDb, blocked: WriteBlockReason | null, nowMs: number, counters = readCounters(db), gaps = readGaps(db)): OutboxState {
  let oldest: number | null = null;
  // Positions follow append order and a replay keeps the position, so the first entry is the oldest.
  for (const { value } of db.getRange({ ...range('p'), limit: 1 })) {
    oldest = (value as StoredEntry).enqueued_at_unix_ms;
  }
  return embeddedState(counters, oldest, gaps, blocked, nowMs);
}

/**
 * Takes back what one batch did to the counters (from `before` to `after`), keeping
 * what other batches did meanwhile.
 */
export function undoCounts(counters: Counters, before: Counters, after: Counters): void {
  for (const key of ['pending', 'dead_letters', 'bytes', 'total_delivered', 'total_failed', 'replay_gaps'] as const) {
    counters[key] -= after[key] - before[key];
  }
  if (counters.last_error === after.last_error) counters.last_error = before.last_error;
}
