import type { Database, Key } from 'lmdb';
import type { OutboxState, ReplayGap, WriteBlockReason } from '../contracts/outbox.js';
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

/**
 * A sink's state as an earlier version's LMDB outbox records it (the offline reader).
 */
export function sinkState(db: SinkDb, blocked: WriteBlockReason | null, nowMs: number, counters = readCounters(db), gaps = readGaps(db)): OutboxState {
  let oldest: number | null = null;
  // Positions follow append order and a replay keeps the position, so the first entry is the oldest.
  for (const { value } of db.getRange({ ...range('p'), limit: 1 })) {
    oldest = (value as StoredEntry).enqueued_at_unix_ms;
  }
  return embeddedState(counters, oldest, gaps, blocked, nowMs);
}
