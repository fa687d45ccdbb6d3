import fs from 'node:fs';
import type { OutboxLimits, OutboxStore } from '../contracts/outbox.js';
import { persistWriteBlock, readWriteBlock, replayJournal, sinkDir } from './journal-files.js';
import { JournalOutbox } from './journal-outbox.js';
import { JournalSegments } from './journal-segments.js';
import { OutboxBudget } from './outbox-budget.js';

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
