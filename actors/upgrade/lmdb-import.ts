import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../files/atomic-json.js';
import { outboxDir, sinkDir } from '../outbox/journal-outbox-store.js';
import { entryRecord } from '../outbox/journal-book.js';
import { commitRecord, encodeBatch, type JournalRecord } from '../outbox/journal-records.js';
import type { RetryMark, StoredDead } from './lmdb-outbox.js';

/**
 * Moves an LMDB outbox that an earlier version left in the state dir
 * (`outbox/data.mdb`) into the journals, once: each sink's pending entries (with their
 * attempts and due times), dead letters, counters and gaps become segment 0 of its
 * journal, written beside and renamed into place, and then the LMDB files are renamed
 * aside (`*.imported`). A crash in between imports again only the sinks without a
 * segment 0. lmdb is loaded only when there is such a file.
 */
export async function importLmdbOutbox(stateDir: string): Promise<void> {
  const dir = outboxDir(stateDir);
  if (!fs.existsSync(path.join(dir, 'data.mdb'))) return;
  const { openOutboxEnv, openSinkDb, readCounters, readGaps, recordsOf } = await import('./lmdb-outbox.js');
  const env = openOutboxEnv(stateDir, false);
  try {
    for (const name of [...env.getKeys()].map(String)) {
      if (!name.startsWith('sink:')) continue;
      const sink = name.slice('sink:'.length);
      const target = path.join(sinkDir(stateDir, sink), '0000000000.log');
      if (fs.existsSync(target)) continue;
      const db = openSinkDb(env, sink);
      const retries = new Map(recordsOf<RetryMark>(db, 'r'));
      const out: JournalRecord[] = [];
      for (const kind of ['p', 'd'] as const) {
        for (const [pos, stored] of recordsOf<StoredDead>(db, kind)) {
          const { id, sequence, enqueued_at_unix_ms, replayed_at_unix_ms } = stored;
          const mark = kind === 'd' ? { attempts: stored.attempts, not_before_unix_ms: 0 } : retries.get(pos);
          const dead = kind === 'd' ? { error: stored.error, at_unix_ms: stored.dead_at_unix_ms } : null;
          out.push(entryRecord({ pos, id, sequence, enqueued_at_unix_ms, replayed_at_unix_ms, attempts: mark?.attempts ?? 0, notBefore: mark?.not_before_unix_ms ?? 0, dead }, stored.body));
        }
      }
      out.push(commitRecord(readCounters(db), readGaps(db)));
      await writeFileAtomic(target, encodeBatch(out).buf.toString());
    }
  } finally {
    await env.close();
  }
  const aside = `imported-${Date.now()}`;
  for (const file of ['data.mdb', 'lock.mdb']) {
    await fs.promises.rename(path.join(dir, file), path.join(dir, `${file}.${aside}`)).catch(() => undefined);
  }
}
