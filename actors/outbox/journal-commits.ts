import type { ReplayGap } from '../contracts/outbox.js';
import type { JournalBook } from './journal-book.js';
import { commitRecord, encodeBatch, type JournalRecord } from './journal-records.js';
import type { Counters } from './outbox-state.js';
import type { JournalSegments } from './journal-segments.js';

/** A head segment whose entries are all settled is rolled over past this size, so it can go. */
const ROLL_SETTLED_BYTES = 64 * 1024;

export interface JournalOp {
  /** The records, built when the batch is written (so they see the state of the moment). */
  records: () => JournalRecord[];
  /** What the op does to the counters; applied once its batch is on disk. */
  count?: (c: Counters) => void;
  /** Goes first in its batch: entries moved forward carry the state the batch's settlements change. */
  first?: boolean;
}

interface Waiting extends JournalOp {
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * One sink's journal writes, grouped: the ops waiting while a batch is written go in the
 * next, one sync for all, so a busy sink commits as often as the disk syncs. A batch ends
 * with the counters (a commit line); once on disk its records are applied to the book as
 * the replay applies them. A failed batch rejects each op with the OS's error.
 */
export class JournalCommits {
  /** The live counters: the committed ones and the gaps recorded since. */
  readonly counters: Counters;
  private gapList: ReplayGap[];
  private gapsVersion = 0;
  private storedGapsVersion = 0;
  private readonly waiting: Waiting[] = [];
  private committing: Promise<void> | null = null;

  constructor(
    private readonly book: JournalBook,
    private readonly segments: JournalSegments,
    /** Runs after each batch that was written (the outbox frees segments there). */
    private readonly afterCommit: () => Promise<void>,
  ) {
    this.counters = { ...book.counters };
    this.gapList = book.gaps;
  }

  get gaps(): readonly ReplayGap[] {
    return this.gapList;
  }

  /** Replaces the gaps; the next batch stores them. */
  setGaps(gaps: ReplayGap[]): void {
    this.gapList = gaps;
    this.gapsVersion += 1;
  }

  write(op: JournalOp): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ ...op, resolve, reject });
      this.commitSoon();
    });
  }

  async idle(): Promise<void> {
    while (this.committing) await this.committing;
  }

  private commitSoon(): void {
    if (this.committing) return;
    this.committing = this.commitWaiting().finally(() => {
      this.committing = null;
      if (this.waiting.length > 0) this.commitSoon();
    });
  }

  private async commitWaiting(): Promise<void> {
    for (let group = this.waiting.splice(0); group.length > 0; group = this.waiting.splice(0)) {
      try {
        await this.commit(group);
      } catch (err) {
        for (const w of group) w.reject(err);
        continue;
      }
      await this.afterCommit().catch(() => undefined);
      for (const w of group) w.resolve();
    }
  }

  private async commit(group: Waiting[]): Promise<void> {
    const records = [...group.filter((w) => w.first), ...group.filter((w) => !w.first)].flatMap((w) => w.records());
    const next = { ...this.counters };
    for (const w of group) w.count?.(next);
    const gapsVersion = this.gapsVersion;
    const head = this.segments.headSeg;
    const roll = head !== null && this.book.heldIn(head).count === 0 && (this.segments.sizes.get(head) ?? 0) >= ROLL_SETTLED_BYTES;
    let batch = encodeBatch([...records, commitRecord(next, gapsVersion !== this.storedGapsVersion ? this.gapList : null)]);
    // A new segment starts with the gaps, so that deleting older ones never loses them.
    if (this.segments.opensSegment(batch.buf.length, roll)) batch = encodeBatch([...records, commitRecord(next, this.gapList)]);
    const { seg, off } = await this.segments.append(batch.buf, roll);
    this.storedGapsVersion = Math.max(this.storedGapsVersion, gapsVersion);
    for (const w of group) w.count?.(this.counters);
    records.forEach((r, i) => this.book.apply(r, { seg, off: off + batch.offsets[i]!, len: batch.lengths[i]! }));
  }
}
