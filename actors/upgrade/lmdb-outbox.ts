import fs from 'node:fs';
import path from 'node:path';
import { open, type Database, type Key, type RootDatabase } from 'lmdb';
import type { OutboxState, ReplayGap, WriteBlockReason } from '../contracts/outbox.js';
import { noCounts, outboxState, type OutboxCounts } from '../outbox/outbox-state.js';

/**
 * The LMDB outbox an earlier version kept in `<state_dir>/outbox` (data.mdb, lock.mdb):
 * one named sub-database `sink:<tag>` per sink and `node` for node-wide facts. The
 * node imports it once, at its first sink open (lmdb-import.ts); until then `weir connector state`
 * reads it read-only. Keys of a sink are ordered-binary arrays, so the entries of each
 * kind sit together in position (append) order:
 *   ['p', pos] → StoredEntry   pending entries
 *   ['r', pos] → RetryMark     failed attempts and due time of a pending entry
 *   ['d', pos] → StoredDead    dead letters
 *   'counters' → OutboxCounts, 'gaps' → ReplayGap[]
 */
export type SinkDb = Database<unknown, Key>;

export const COUNTERS_KEY = 'counters';
export const GAPS_KEY = 'gaps';

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

/** The records of one kind, by position. */
export function* recordsOf<T>(db: SinkDb, kind: 'p' | 'r' | 'd'): Generator<[number, T]> {
  for (const { key, value } of db.getRange({ start: [kind, 0], end: [kind, Number.MAX_SAFE_INTEGER] })) yield [(key as [string, number])[1], value as T];
}

export function openOutboxEnv(stateDir: string, readOnly: boolean): RootDatabase<unknown, Key> {
  const dir = path.join(stateDir, 'outbox');
  if (!readOnly) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Without event-turn batching: lmdb-js opens each turn's transaction with a write of its
  // own whose promise it drops, so a commit that fails (a full disk) rejected it unhandled
  // and ended the process. Every write here is in a batch of its own anyway.
  return open<unknown, Key>({ path: dir, maxDbs: 256, readOnly, eventTurnBatching: false });
}

export const openSinkDb = (env: RootDatabase<unknown, Key>, sink: string): SinkDb => env.openDB<unknown, Key>({ name: `sink:${sink}` });

export function readCounters(db: SinkDb): OutboxCounts {
  return { ...noCounts(), ...(db.get(COUNTERS_KEY) as Partial<OutboxCounts> | undefined) };
}

export const readGaps = (db: SinkDb): ReplayGap[] => (db.get(GAPS_KEY) as ReplayGap[] | undefined) ?? [];

/** A sink's state in the LMDB outbox, not imported yet; null when it has none. write_blocked is the last one the node recorded. */
export async function readLmdbOutboxState(stateDir: string, sink: string): Promise<OutboxState | null> {
  const env = openOutboxEnv(stateDir, true);
  try {
    const names = new Set([...env.getKeys()].map(String));
    if (!names.has(`sink:${sink}`)) return null;
    const node = names.has('node') ? (env.openDB<unknown, Key>({ name: 'node' }).get('storage') as { write_blocked_reason: WriteBlockReason | null } | undefined) : undefined;
    const db = openSinkDb(env, sink);
    // A replay keeps the position, so the first pending entry is the oldest.
    const first = recordsOf<StoredEntry>(db, 'p').next().value;
    return outboxState('embedded', readCounters(db), first ? first[1].enqueued_at_unix_ms : null, readGaps(db), node?.write_blocked_reason ?? null, Date.now());
  } finally {
    await env.close();
  }
}
