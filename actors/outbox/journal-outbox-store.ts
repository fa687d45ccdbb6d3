import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { OutboxLimits, OutboxStore, WriteBlockReason } from '../contracts/outbox.js';
import { readStateFile, writeFileAtomic } from '../files/atomic-json.js';
import { JournalBook } from './journal-book.js';
import { JournalOutbox } from './journal-outbox.js';
import { decodeSegment } from './journal-records.js';
import { JournalSegments, listSegments, readSegment } from './journal-segments.js';
import { OutboxBudget } from './outbox-budget.js';

/** The embedded store's files in node.state_dir: `outbox/sinks/<tag, URI-encoded>/`, and `outbox/storage.json`, the last write block, for offline readers. */
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

function persistWriteBlock(stateDir: string, reason: WriteBlockReason | null): Promise<void> {
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

export interface JournalOutboxStoreOptions {
  /** node.state_dir; the journals live in its `outbox` subdirectory. */
  stateDir: string;
  limits: OutboxLimits;
  /** Told when persisting the write-block state failed (the live state stays right). */
  onError?: (err: unknown) => void;
}

/** The embedded store: an append-only journal per sink in the state dir (journal-outbox.ts). */
export class JournalOutboxStore implements OutboxStore<JournalOutbox> {
  private readonly budget: OutboxBudget;
  private readonly outboxes = new Set<JournalOutbox>();
  /** The write-block states being persisted, one after the other; close waits for them. */
  private persisting: Promise<void> = Promise.resolve();

  constructor(private readonly opts: JournalOutboxStoreOptions) {
    const onError = opts.onError ?? (() => undefined);
    this.budget = new OutboxBudget(
      opts.limits,
      opts.stateDir,
      (reason) => {
        this.persisting = this.persisting.then(() => persistWriteBlock(opts.stateDir, reason)).catch(onError);
      },
      readWriteBlock(opts.stateDir),
    );
  }

  async open(sink: string): Promise<JournalOutbox> {
    const dir = sinkDir(this.opts.stateDir, sink);
    const { book, sizes, last } = await replayJournal(dir);
    // An opened sink has an outbox for offline readers, even before its first write; on a
    // full disk the directory is made by the first write that finds room.
    await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 }).catch(() => undefined);
    const segments = new JournalSegments(dir, last);
    for (const [seg, size] of sizes) segments.sizes.set(seg, size);
    const outbox = new JournalOutbox(sink, book, segments, this.budget, (o) => this.outboxes.delete(o));
    this.outboxes.add(outbox);
    return outbox;
  }

  async close(): Promise<void> {
    await Promise.all([...this.outboxes].map((o) => o.close()));
    await this.persisting;
  }
}
