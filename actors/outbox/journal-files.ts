import path from 'node:path';
import { z } from 'zod';
import type { WriteBlockReason } from '../contracts/outbox.js';
import { readStateFile, writeFileAtomic } from '../files/atomic-json.js';
import { JournalBook } from './journal-book.js';
import { decodeSegment } from './journal-records.js';
import { listSegments, readSegment } from './journal-segments.js';

/**
 * Where the embedded store keeps its files in node.state_dir: one journal directory
 * per sink, `outbox/sinks/<sink>/` (the tag URI-encoded), and `outbox/storage.json`,
 * the node's last write-block state for readers without a running node.
 */
export function outboxDir(stateDir: string): string {
  return path.join(stateDir, 'outbox');
}

export function sinkDir(stateDir: string, sink: string): string {
  return path.join(outboxDir(stateDir), 'sinks', encodeURIComponent(sink));
}

const storageFile = (stateDir: string): string => path.join(outboxDir(stateDir), 'storage.json');

const Storage = z.object({ write_blocked_reason: z.enum(['max_bytes', 'min_free_bytes', 'store_full']).nullable() });

export function readWriteBlock(stateDir: string): WriteBlockReason | null {
  const read = readStateFile(storageFile(stateDir), Storage);
  return 'value' in read ? read.value.write_blocked_reason : null;
}

export function persistWriteBlock(stateDir: string, reason: WriteBlockReason | null): Promise<void> {
  return writeFileAtomic(storageFile(stateDir), `${JSON.stringify({ write_blocked_reason: reason })}\n`);
}

/** A sink's journal replayed: the book, its segments' sizes, and the highest segment number. */
export async function replayJournal(dir: string): Promise<{ book: JournalBook; sizes: Map<number, number>; last: number }> {
  const book = new JournalBook();
  const sizes = new Map<number, number>();
  const segs = await listSegments(dir);
  for (const seg of segs) {
    // A running node deletes a segment only once all in it is settled or written anew
    // further on: an offline reader that finds one gone has lost nothing.
    const data = await readSegment(dir, seg).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    if (!data) continue;
    sizes.set(seg, data.length);
    for (const { record, off, len } of decodeSegment(data)) book.apply(record, { seg, off, len });
  }
  return { book, sizes, last: segs.at(-1) ?? 0 };
}
