import type { DeadLetter, LeasedOutbox, OutboxAppend, OutboxEntry, OutboxState, ReplayGap } from '../contracts/outbox.js';
import { AppendSignal } from './append-signal.js';
import { countFailure, outboxState, withGap } from './outbox-state.js';
import { BodyCache } from './body-cache.js';
import { entryRecord, toDeadLetter, toEntry, type Item, type JournalBook } from './journal-book.js';
import { JournalCommits } from './journal-commits.js';
import { decodeLine, type EntryRecord } from './journal-records.js';
import type { JournalSegments } from './journal-segments.js';
import { LeaseBook } from './lease-book.js';
import { LeaseOrder } from './lease-order.js';
import type { OutboxBudget } from './outbox-budget.js';
import { OutboxClosed, OutboxUnavailable } from './outbox-errors.js';

/** Bodies of pending entries kept in memory per sink for leases. */
const CACHE_MAX_BYTES = 16 * 1024 * 1024;

/** The oldest segment is compacted below this share of its bytes held: a few dead letters must not keep it, and all after it, on disk. */
const COMPACT_BELOW = 0.25;

/**
 * The embedded outbox of one sink: an append-only journal and, in memory, the book of
 * what it holds, its leases and lease order; bodies are read back from disk unless in a
 * bounded cache. Every change is a committed record: one the disk refuses changes
 * nothing. A segment goes once all in it, and in every older one, is settled.
 */
export class JournalOutbox implements LeasedOutbox {
  private readonly leases = new LeaseBook<Item>();
  private readonly leased = new Set<number>();
  private readonly appended = new AppendSignal();
  private readonly cache = new BodyCache(CACHE_MAX_BYTES);
  private readonly order: LeaseOrder;
  private readonly commits: JournalCommits;
  private nextPos: number;
  /** Body reads in flight: no segment is deleted meanwhile. */
  private reading = 0;
  private compacting = false;
  private closed = false;

  constructor(
    readonly sink: string,
    private readonly book: JournalBook,
    private readonly segments: JournalSegments,
    private readonly budget: OutboxBudget,
    private readonly onClose: (outbox: JournalOutbox) => void,
  ) {
    this.order = new LeaseOrder([...book.items.keys()]);
    this.nextPos = book.nextPos;
    this.commits = new JournalCommits(book, segments, () => this.freeSegments());
    budget.load(sink, book.bytes);
  }

  async append(entries: readonly OutboxAppend[]): Promise<void> {
    this.assertOpen();
    if (entries.length === 0) return;
    const now = Date.now();
    const bytes = entries.reduce((n, e) => n + Buffer.byteLength(e.body), 0);
    await this.budget.reserve(this.sink, bytes);
    const first = this.nextPos;
    this.nextPos += entries.length;
    try {
      await this.commits.write({
        records: () => entries.map((e, i) => ({ k: 'e', p: first + i, i: e.id, s: e.sequence, t: now, r: null, b: e.body })),
      });
    } catch (err) {
      this.budget.release(this.sink, bytes);
      throw await this.budget.commitFailed({ cause: err });
    }
    entries.forEach((e, i) => {
      this.cache.add(first + i, e.body);
      this.order.push(first + i);
    });
    this.budget.committed();
    this.appended.fire();
  }

  onAppend(listener: () => void): () => void {
    return this.appended.on(listener);
  }

  async lease(max: number): Promise<OutboxEntry[]> {
    this.assertOpen();
    const now = Date.now();
    const chosen: Item[] = [];
    let left: number | null = null;
    let last: number | null = null;
    for (const pos of this.order.scan(this.order.from)) {
      if (chosen.length >= max) {
        left ??= pos;
        break;
      }
      last = pos;
      const item = this.book.items.get(pos);
      if (!item || item.dead || this.leased.has(pos)) continue;
      // Waiting for its due time, or the same event appended twice and leased already.
      if (item.notBefore > now || this.leases.has(item.id)) {
        left ??= pos;
        continue;
      }
      this.leases.add(item.id, item);
      this.leased.add(pos);
      chosen.push(item);
    }
    this.order.from = left ?? (last === null ? this.order.from : last + 1);
    try {
      const bodies = await this.bodies(chosen);
      return chosen.map((item, i) => toEntry(item, bodies[i]!));
    } catch (err) {
      // Not handed out: pending and unleased again.
      for (const item of chosen) {
        this.leases.delete(item.id);
        this.unlease(item.pos);
      }
      throw err;
    }
  }

  ack(ids: readonly string[]): Promise<void> {
    this.assertOpen();
    return this.settle(ids, (items) => ({
      records: () => [{ k: 'a', p: items.map((l) => l.pos) }],
      count: (c) => void (c.total_delivered += items.length),
    })).then((items) => {
      if (items) this.forget(items);
    });
  }

  async retry(id: string, error: string, notBeforeUnixMs: number): Promise<void> {
    this.assertOpen();
    const at = Date.now();
    const items = await this.settle([id], ([item]) => ({
      records: () => [{ k: 'r', p: item!.pos, n: item!.attempts + 1, w: notBeforeUnixMs }],
      count: (c) => countFailure(c, error, at),
    }));
    // The book has the new due time before the lease is dropped: no lease between finds it due.
    if (items) this.unlease(items[0]!.pos);
  }

  async deadLetter(id: string, error: string): Promise<void> {
    this.assertOpen();
    const at = Date.now();
    const items = await this.settle([id], ([item]) => ({
      records: () => [{ k: 'd', p: item!.pos, n: item!.attempts + 1, x: error, y: at }],
      count: (c) => countFailure(c, error, at),
    }));
    if (items) {
      this.leased.delete(items[0]!.pos);
      this.cache.delete(items[0]!.pos);
    }
  }

  async listDeadLetters(limit: number): Promise<DeadLetter[]> {
    this.assertOpen();
    const dead: Item[] = [];
    for (const pos of this.order.scan(0)) {
      if (dead.length >= limit) break;
      const item = this.book.items.get(pos);
      if (item?.dead) dead.push(item);
    }
    const bodies = await this.bodies(dead);
    return dead.map((item, i) => toDeadLetter(item, bodies[i]!));
  }

  async replayDeadLetters(ids?: readonly string[]): Promise<number> {
    this.assertOpen();
    const wanted = ids ? new Set(ids) : null;
    const chosen = [...this.book.items.values()].filter((item) => item.dead && (!wanted || wanted.has(item.id))).map((item) => item.pos);
    if (chosen.length === 0) return 0;
    await this.commits.write({ records: () => [{ k: 'l', p: chosen, t: Date.now() }] }).catch((err: unknown) => {
      throw this.unavailable(err);
    });
    for (const pos of chosen) this.order.rewind(pos);
    return chosen.length;
  }

  /**
   * The gap counts even when the disk is too full to write it down (the next batch that
   * commits stores it), and resolves, so a caller that tries again does not count it twice.
   */
  async recordGap(gap: ReplayGap, continuesLast: boolean): Promise<void> {
    this.assertOpen();
    const { gaps, counts } = withGap(this.commits.gaps, gap, continuesLast);
    this.commits.setGaps(gaps);
    if (counts) this.commits.counters.replay_gaps += 1;
    await this.commits.write({ records: () => [] }).catch(() => undefined);
  }

  async state(): Promise<OutboxState> {
    this.assertOpen();
    return outboxState('embedded', this.book.counts(this.commits.counters), this.oldestPending(), [...this.commits.gaps], this.budget.reason, Date.now());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Writes already made (an ack the stop did not wait for) reach the disk before the segment closes.
    await this.commits.idle();
    await this.segments.close();
    this.leases.clear();
    this.leased.clear();
    this.cache.clear();
    this.appended.clear();
    this.onClose(this);
  }

  /** The append time of the pending entry with the lowest position (moves and replays keep both). */
  private oldestPending(): number | null {
    for (const pos of this.order.scan(0)) {
      const item = this.book.items.get(pos);
      if (item && !item.dead) return item.enqueued_at_unix_ms;
    }
    return null;
  }

  /** Writes the op of the leased entries of `ids`; resolves with them, or null when none was leased. */
  private settle(ids: readonly string[], op: (items: Item[]) => Parameters<JournalCommits['write']>[0]): Promise<Item[] | null> {
    return this.leases.settle(ids, async (items) => {
      await this.commits.write(op(items)).catch((err: unknown) => {
        throw this.unavailable(err);
      });
      return items;
    });
  }

  /** Delivered entries left the journal. */
  private forget(items: Item[]): void {
    const bytes = items.reduce((n, item) => n + item.bytes, 0);
    for (const item of items) {
      this.leased.delete(item.pos);
      this.cache.delete(item.pos);
      this.order.settled((pos) => this.book.items.has(pos));
    }
    this.budget.release(this.sink, bytes);
  }

  private unlease(pos: number): void {
    this.leased.delete(pos);
    this.order.rewind(pos);
  }

  /** The bodies of `items`, from the cache or read back from their segments. */
  private async bodies(items: Item[]): Promise<string[]> {
    const out = items.map((item) => this.cache.get(item.pos));
    if (!out.includes(undefined)) return out as string[];
    this.reading += 1;
    try {
      return await Promise.all(out.map(async (body, i) => body ?? this.readBody(items[i]!)));
    } finally {
      this.reading -= 1;
    }
  }

  private async readBody(item: Item): Promise<string> {
    const line = await this.segments.read(item.at.seg, item.at.off, item.at.len);
    return (decodeLine(line, 0, line.length - 1) as EntryRecord).b;
  }

  /** Deletes, or compacts, only the oldest segment: a newer one may hold settlements of entries in older ones. */
  private async freeSegments(): Promise<void> {
    for (;;) {
      const oldest = Math.min(...this.segments.sizes.keys());
      if (!Number.isFinite(oldest) || oldest === this.segments.headSeg || this.reading > 0) return;
      const held = this.book.heldIn(oldest);
      if (held.count === 0) {
        await this.segments.remove(oldest);
        continue;
      }
      if (!this.compacting && held.bytes < COMPACT_BELOW * (this.segments.sizes.get(oldest) ?? 0)) void this.compact(oldest);
      return;
    }
  }

  private async compact(seg: number): Promise<void> {
    this.compacting = true;
    try {
      const items = [...this.book.items.values()].filter((item) => item.at.seg === seg);
      const bodies = await this.bodies(items);
      if (this.closed) return;
      // Entries settled while the bodies were read are not moved: the book no longer holds them.
      await this.commits.write({
        first: true,
        records: () => items.flatMap((item, i) => (this.book.items.get(item.pos) === item ? [entryRecord(item, bodies[i]!)] : [])),
      });
    } catch {
      // Tried again after a later commit.
    } finally {
      this.compacting = false;
    }
  }

  private unavailable(err: unknown): OutboxUnavailable {
    return new OutboxUnavailable(`the embedded outbox of sink ${this.sink} could not write: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }

  private assertOpen(): void {
    if (this.closed) throw new OutboxClosed(`the outbox of sink ${this.sink} is closed`);
  }
}
