import fs from 'node:fs';
import path from 'node:path';
import type { OutboxState } from '../contracts/outbox.js';
import { outboxDir, readWriteBlock, replayJournal, sinkDir } from './journal-files.js';
import { embeddedState } from './embedded-state.js';

/**
 * A sink's embedded outbox state without a running node (`weir connector state`): its
 * journal replayed read-only (a batch the node is writing meanwhile is not complete
 * and does not count). An LMDB outbox in the state dir (the spill store beside Redis,
 * or one from an earlier version that no node imported yet) is read instead. Null when
 * the state dir holds no outbox of that sink. write_blocked is the last one the node recorded.
 */
export async function readOutboxState(stateDir: string, sink: string): Promise<OutboxState | null> {
  if (fs.existsSync(path.join(outboxDir(stateDir), 'data.mdb'))) {
    const { readLmdbOutboxState } = await import('./read-lmdb-outbox-state.js');
    return readLmdbOutboxState(stateDir, sink);
  }
  const dir = sinkDir(stateDir, sink);
  if (!fs.existsSync(dir)) return null;
  const { book } = await replayJournal(dir);
  return embeddedState(book.counts(), book.oldestPending(), book.gaps, readWriteBlock(stateDir), Date.now());
}
