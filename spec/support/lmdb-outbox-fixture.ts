import { COUNTERS_KEY, GAPS_KEY, openOutboxEnv, openSinkDb, type RetryMark, type StoredDead, type StoredEntry } from '../../actors/upgrade/lmdb-outbox.js';
import type { OutboxCounts } from '../../actors/outbox/outbox-state.js';
import type { ReplayGap } from '../../actors/contracts/outbox.js';

/** One sink's records as an earlier version's LMDB outbox kept them, by position. */
export interface LmdbSinkRecords {
  pending: Array<[number, StoredEntry]>;
  retries: Array<[number, RetryMark]>;
  dead: Array<[number, StoredDead]>;
  counters: OutboxCounts;
  gaps: ReplayGap[];
}

/** Writes an LMDB outbox in `<stateDir>/outbox` in the layout lmdb-outbox.ts describes. */
export async function writeLmdbOutbox(stateDir: string, sinks: Record<string, LmdbSinkRecords>): Promise<void> {
  const env = openOutboxEnv(stateDir, false);
  try {
    for (const [sink, r] of Object.entries(sinks)) {
      const db = openSinkDb(env, sink);
      await db.transaction(() => {
        for (const [pos, e] of r.pending) db.put(['p', pos], e);
        for (const [pos, m] of r.retries) db.put(['r', pos], m);
        for (const [pos, d] of r.dead) db.put(['d', pos], d);
        db.put(COUNTERS_KEY, r.counters);
        db.put(GAPS_KEY, r.gaps);
      });
    }
  } finally {
    await env.close();
  }
}
