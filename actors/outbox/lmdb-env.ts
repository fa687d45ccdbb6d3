import fs from 'node:fs';
import path from 'node:path';
import { open, type Key, type RootDatabase } from 'lmdb';
import type { WriteBlockReason } from '../contracts/outbox.js';
import type { SinkDb } from './lmdb-records.js';

/**
 * The LMDB outbox an earlier version kept in `<state_dir>/outbox` (data.mdb, lock.mdb):
 * one named sub-database per sink and one `node` sub-database for node-wide facts.
 * The journal store imports it once (lmdb-import.ts); until then `weir connector
 * state` reads it read-only (read-lmdb-outbox-state.ts).
 */
function outboxDir(stateDir: string): string {
  return path.join(stateDir, 'outbox');
}

/** Sub-databases an environment may hold: one per sink plus `node`. */
const MAX_DBS = 256;

export function openOutboxEnv(stateDir: string, readOnly: boolean): RootDatabase<unknown, Key> {
  const dir = outboxDir(stateDir);
  if (!readOnly) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Without event-turn batching: lmdb-js opens each turn's transaction with a write of its
  // own whose promise it drops, so a commit that fails (a full disk) rejected it unhandled
  // and ended the process. Every write here is in a batch of its own anyway.
  return open<unknown, Key>({ path: dir, maxDbs: MAX_DBS, readOnly, eventTurnBatching: false });
}

/** Whether a node ever created an outbox in this state dir. */
export function outboxEnvExists(stateDir: string): boolean {
  return fs.existsSync(path.join(outboxDir(stateDir), 'data.mdb'));
}

export function openSinkDb(env: RootDatabase<unknown, Key>, sink: string): SinkDb {
  return env.openDB<unknown, Key>({ name: `sink:${sink}` });
}

export function openNodeDb(env: RootDatabase<unknown, Key>): SinkDb {
  return env.openDB<unknown, Key>({ name: 'node' });
}

/** The node's last write-block state, kept for readers without a running node. */
const STORAGE_KEY = 'storage';

export function readWriteBlock(nodeDb: SinkDb): WriteBlockReason | null {
  return (nodeDb.get(STORAGE_KEY) as { write_blocked_reason: WriteBlockReason | null } | undefined)?.write_blocked_reason ?? null;
}
