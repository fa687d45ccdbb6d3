import type {
  DeadLetter,
  OutboxAppend,
  OutboxEntry,
  OutboxState,
  LeasedOutbox,
  ReplayGap,
} from '../contracts/outbox.js';
import type { Key } from 'lmdb';
import { AppendSignal } from './append-signal.js';
import { LeaseBook } from './lease-book.js';
import { countFailure, withGap } from './gap-list.js';
import {
  deadKey,
  entryKey,
  positionOf,
  range,
  retryKey,
  sinkState,
  toDeadLetter,
  toEntry,
  type RetryMark,
  type SinkDb,
  type StoredDead,
  type StoredEntry,
} from './lmdb-records.js';
import type { OutboxBudget } from './outbox-budget.js';
import { OutboxClosed } from './outbox-errors.js';
import { RecentEntries, type Held } from './recent-entries.js';
import { SinkCommits } from './sink-commits.js';

/** Bodies of pending entries kept in memory per sink for leases (RecentEntries). */
const RECENT_MAX_BYTES = 16 * 1024 * 1024;

interface Lease {
  pos: number;
  bytes: number;
  attempts: number;
}

/**
 * The embedded outbox of one sink (layout in lmdb-records.ts). Every change is one
 * LMDB batch (one transaction) together with the counters it moves, committed on
 * lmdb-js's write thread and awaited until flushed to disk. Batches, not transaction
 * callbacks: a callback makes the write thread wait for the JS thread, and a
 * process.exit() during one never returns (lmdb-js issue #336). So the counters and
 * gaps are kept in memory and written whole in each batch (SinkCommits); leases and due
 * times are in memory too, for a lease() that reads keys only.
 */
export class LmdbOutbox implements LeasedOutbox {
  private readonly leases = new LeaseBook<Lease>();
  private readonly leasedPositions = new Set<number>();
  private readonly retries = new Map<number, RetryMark>();
  private readonly appended = new AppendSignal();
  private readonly recent = new RecentEntries(RECENT_MAX_BYTES);
  private readonly commits: SinkCommits;
  private nextPos = 0;
  /** Every pending position below it is leased (or was, and left): a lease scans from here. */
  private leaseFrom = 0;
  private closed = false;

  constructor(
    readonly sink: string,
    private readonly db: SinkDb,
    private readonly budget: OutboxBudget,
    private readonly onClose: (outbox: LmdbOutbox) => void,
  ) {
    for (const { key, value } of db.getRange(range('r'))) this.retries.set(positionOf(key), value as RetryMark);
    // Past the last pending or dead position, so a replayed dead letter keeps its place.
    // A range's end is exclusive, so the reverse scan ends below position 0, or an only
    // entry at 0 would be missed and written over by the next append.
    for (const kind of ['p', 'd'] as const) {
      for (const key of db.getKeys({ start: range(kind).end, end: [kind, -1], reverse: true, limit: 1 })) {
        this.nextPos = Math.max(this.nextPos, positionOf(key) + 1);
      }
    }
    this.commits = new SinkCommits(db, sink);
    budget.load(sink, this.commits.counters.bytes);
  }

  async append(entries: readonly OutboxAppend[]): Promise<void> {
    this.assertOpen();
    if (entries.length === 0) return;
    const now = Date.now();
    let bytes = 0;
    const held = entries.map((e): Held => {
      const size = Buffer.byteLength(e.body);
      bytes += size;
      return { stored: { id: e.id, sequence: e.sequence, body: e.body, enqueued_at_unix_ms: now, replayed_at_unix_ms: null }, bytes: size };
    });
    await this.budget.reserve(this.sink, bytes);
    const first = this.nextPos;
    this.nextPos += entries.length;
    // Before the commit: a lease may find the records before this write resolves.
    held.forEach((h, i) => this.recent.add(first + i, h));
    try {
      await this.commits.write((c) => {
        held.forEach((h, i) => this.commits.put(entryKey(first + i), h.stored));
        c.pending += entries.length;
        c.bytes += bytes;
      });
    } catch (err) {
      held.forEach((_, i) => this.recent.delete(first + i));
      this.budget.release(this.sink, bytes);
      throw await this.budget.commitFailed({ cause: err });
    }
    this.budget.committed();
    this.appended.fire();
  }

  onAppend(listener: () => void): () => void {
    return this.appended.on(listener);
  }

  async lease(max: number): Promise<OutboxEntry[]> {
    this.assertOpen();
    const now = Date.now();
    const out: OutboxEntry[] = [];
    // The first position this scan leaves pending and unleased: the next scan starts there.
    let left: number | null = null;
    let last: number | null = null;
    for (const key of this.db.getKeys({ start: entryKey(this.leaseFrom), end: range('p').end })) {
      const pos = positionOf(key);
      if (out.length >= max) {
        left ??= pos;
        break;
      }
      last = pos;
      if (this.leasedPositions.has(pos)) continue;
      const mark = this.retries.get(pos);
      if (mark && mark.not_before_unix_ms > now) {
        left ??= pos;
        continue;
      }
      const { stored, bytes } = this.recent.get(pos) ?? this.read(key);
      // The same event appended twice is leased once at a time: leases are keyed by id.
      if (this.leases.has(stored.id)) {
        left ??= pos;
        continue;
      }
      const attempts = mark?.attempts ?? 0;
      this.leases.add(stored.id, { pos, bytes, attempts });
      this.leasedPositions.add(pos);
      out.push(toEntry(stored, attempts));
    }
    // Not past the last record seen: an append may be committing the positions after it.
    this.leaseFrom = left ?? (last === null ? this.leaseFrom : last + 1);
    return out;
  }

  /** The leased entries of `ids` leave the outbox, counted delivered. */
  async ack(ids: readonly string[]): Promise<void> {
    this.assertOpen();
    const done = await this.leases.settle(ids, async (leases) => {
      const bytes = leases.reduce((n, l) => n + l.bytes, 0);
      await this.commits.write((c) => {
        for (const l of leases) {
          this.commits.remove(entryKey(l.pos));
          if (this.retries.has(l.pos)) this.commits.remove(retryKey(l.pos));
        }
        c.total_delivered += leases.length;
        c.pending -= leases.length;
        c.bytes -= bytes;
      });
      this.budget.release(this.sink, bytes);
      return leases;
    });
    for (const l of done ?? []) this.forget(l.pos);
  }

  async retry(id: string, error: string, notBeforeUnixMs: number): Promise<void> {
    this.assertOpen();
    const at = Date.now();
    const done = await this.leases.settle([id], async ([l]) => {
      const mark: RetryMark = { attempts: l!.attempts + 1, not_before_unix_ms: notBeforeUnixMs };
      await this.commits.write((c) => {
        this.commits.put(retryKey(l!.pos), mark);
        countFailure(c, error, at);
      });
      // Set before the lease is dropped, so no lease() in between finds it due.
      this.retries.set(l!.pos, mark);
      return l!;
    });
    if (done) this.unlease(done.pos);
  }

  async deadLetter(id: string, error: string): Promise<void> {
    this.assertOpen();
    const at = Date.now();
    const done = await this.leases.settle([id], async ([l]) => {
      const stored = this.db.get(entryKey(l!.pos)) as StoredEntry;
      const dead: StoredDead = { ...stored, attempts: l!.attempts + 1, error, dead_at_unix_ms: at };
      await this.commits.write((c) => {
        this.commits.remove(entryKey(l!.pos));
        if (this.retries.has(l!.pos)) this.commits.remove(retryKey(l!.pos));
        this.commits.put(deadKey(l!.pos), dead);
        countFailure(c, error, at);
        c.pending -= 1;
        c.dead_letters += 1;
      });
      return l!;
    });
    if (done) this.forget(done.pos);
  }

  async listDeadLetters(limit: number): Promise<DeadLetter[]> {
    this.assertOpen();
    return [...this.db.getRange({ ...range('d'), limit })].map(({ value }) => toDeadLetter(value as StoredDead));
  }

  async replayDeadLetters(ids?: readonly string[]): Promise<number> {
    this.assertOpen();
    const wanted = ids ? new Set(ids) : null;
    const now = Date.now();
    const chosen = [...this.db.getRange(range('d'))].filter(({ value }) => !wanted || wanted.has((value as StoredDead).id));
    if (chosen.length === 0) return 0;
    for (const { key } of chosen) this.leaseFrom = Math.min(this.leaseFrom, positionOf(key));
    await this.commits.write((c) => {
      for (const { key, value } of chosen) {
        const { id, sequence, body, enqueued_at_unix_ms } = value as StoredDead;
        const replayed: StoredEntry = { id, sequence, body, enqueued_at_unix_ms, replayed_at_unix_ms: now };
        this.commits.remove(key);
        this.commits.put(entryKey(positionOf(key)), replayed);
      }
      c.pending += chosen.length;
      c.dead_letters -= chosen.length;
    });
    return chosen.length;
  }

  /**
   * The gap counts whatever the commit does: a miss happened even when the disk is too
   * full to write it down. Then the next batch that commits stores it, and this call
   * resolves all the same, so a caller that tries again does not count it twice.
   */
  async recordGap(gap: ReplayGap, continuesLast: boolean): Promise<void> {
    this.assertOpen();
    const { gaps, counts } = withGap(this.commits.gaps, gap, continuesLast);
    this.commits.setGaps(gaps);
    if (counts) this.commits.counters.replay_gaps += 1;
    await this.commits.write(() => undefined).catch(() => undefined);
  }

  async state(): Promise<OutboxState> {
    this.assertOpen();
    return sinkState(this.db, this.budget.reason, Date.now(), this.commits.counters, [...this.commits.gaps]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Writes already made (an ack the stop did not wait for) reach LMDB before the store closes it.
    await this.commits.idle();
    this.leases.clear();
    this.leasedPositions.clear();
    this.recent.clear();
    this.appended.clear();
    this.onClose(this);
  }

  private read(key: Key): Held {
    const stored = this.db.get(key) as StoredEntry;
    return { stored, bytes: Buffer.byteLength(stored.body) };
  }

  /** The entry is pending and no longer leased: the next lease scans from it at the latest. */
  private unlease(pos: number): void {
    this.leasedPositions.delete(pos);
    this.leaseFrom = Math.min(this.leaseFrom, pos);
  }

  /** The entry left the pending ones. */
  private forget(pos: number): void {
    this.leasedPositions.delete(pos);
    this.retries.delete(pos);
    this.recent.delete(pos);
  }

  private assertOpen(): void {
    if (this.closed) throw new OutboxClosed(`the outbox of sink ${this.sink} is closed`);
  }
}
