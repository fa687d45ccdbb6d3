import type { DeadLetter, OutboxEntry, ReplayGap } from '../contracts/outbox.js';
import { noCounters, type Counters, type OutboxCounts } from './outbox-state.js';
import type { EntryRecord, JournalRecord } from './journal-records.js';

/** Where a record's line is: segment number, byte offset and length. */
export interface Place {
  seg: number;
  off: number;
  len: number;
}

/** An entry the journal holds (pending or dead), without its body: that stays on disk. */
export interface Item {
  pos: number;
  id: string;
  sequence: number;
  enqueued_at_unix_ms: number;
  replayed_at_unix_ms: number | null;
  /** UTF-8 bytes of the body. */
  bytes: number;
  /** The line holding the body. */
  at: Place;
  attempts: number;
  /** Due again from this time on (0: due). */
  notBefore: number;
  dead: { error: string; at_unix_ms: number } | null;
}

/** Entries and body bytes of one segment that are still held. */
type Held = { count: number; bytes: number };

/** What a sink's journal holds, by position: replayed at open, then kept by the outbox with the same records once committed, so the two never differ. */
export class JournalBook {
  readonly items = new Map<number, Item>();
  counters: Counters = noCounters();
  gaps: ReplayGap[] = [];
  pending = 0;
  deadLetters = 0;
  bytes = 0;
  /** One past the highest position ever seen. */
  nextPos = 0;
  private readonly held = new Map<number, Held>();

  apply(record: JournalRecord, at: Place): void {
    switch (record.k) {
      case 'e':
        return this.put(record, at);
      case 'a':
        for (const pos of record.p) {
          const item = this.items.get(pos);
          if (item && !item.dead) this.drop(item);
        }
        return;
      case 'r': {
        const item = this.items.get(record.p);
        if (item) Object.assign(item, { attempts: record.n, notBefore: record.w });
        return;
      }
      case 'd': {
        const item = this.items.get(record.p);
        if (!item || item.dead) return;
        Object.assign(item, { attempts: record.n, notBefore: 0, dead: { error: record.x, at_unix_ms: record.y } });
        this.pending -= 1;
        this.deadLetters += 1;
        return;
      }
      case 'l':
        for (const pos of record.p) {
          const item = this.items.get(pos);
          if (!item?.dead) continue;
          Object.assign(item, { attempts: 0, notBefore: 0, dead: null, replayed_at_unix_ms: record.t });
          this.pending += 1;
          this.deadLetters -= 1;
        }
        return;
      case 'c':
        this.counters = { total_delivered: record.d, total_failed: record.f, replay_gaps: record.g, last_error: record.l };
        if (record.G) this.gaps = record.G;
        return;
    }
  }

  /** What the book holds, with `counters` (the committed ones, or the live ones of an open outbox). */
  counts(counters: Counters = this.counters): OutboxCounts {
    return { ...counters, pending: this.pending, dead_letters: this.deadLetters, bytes: this.bytes };
  }

  /** Entries and body bytes that segment `seg` still holds. */
  heldIn(seg: number): Held {
    return this.held.get(seg) ?? { count: 0, bytes: 0 };
  }

  /** The oldest pending entry's append time; null when nothing is pending. */
  oldestPending(): number | null {
    let oldest: number | null = null;
    for (const item of this.items.values()) {
      if (!item.dead && (oldest === null || item.enqueued_at_unix_ms < oldest)) oldest = item.enqueued_at_unix_ms;
    }
    return oldest;
  }

  /** An entry record: a new entry, or one moved forward (replacing its place and state). */
  private put(r: EntryRecord, at: Place): void {
    const old = this.items.get(r.p);
    if (old) this.drop(old);
    const item: Item = {
      pos: r.p,
      id: r.i,
      sequence: r.s,
      enqueued_at_unix_ms: r.t,
      replayed_at_unix_ms: r.r,
      bytes: Buffer.byteLength(r.b),
      at,
      attempts: r.n ?? 0,
      notBefore: r.w ?? 0,
      dead: r.x === undefined ? null : { error: r.x, at_unix_ms: r.y ?? 0 },
    };
    this.items.set(r.p, item);
    if (item.dead) this.deadLetters += 1;
    else this.pending += 1;
    this.bytes += item.bytes;
    this.count(at.seg, 1, item.bytes);
    this.nextPos = Math.max(this.nextPos, r.p + 1);
  }

  private drop(item: Item): void {
    this.items.delete(item.pos);
    if (item.dead) this.deadLetters -= 1;
    else this.pending -= 1;
    this.bytes -= item.bytes;
    this.count(item.at.seg, -1, -item.bytes);
  }

  private count(seg: number, count: number, bytes: number): void {
    const h = this.heldIn(seg);
    const next = { count: h.count + count, bytes: h.bytes + bytes };
    if (next.count === 0) this.held.delete(seg);
    else this.held.set(seg, next);
  }
}

/** The record of `item` as a whole, with `body`: what moves it forward to a newer segment. */
export function entryRecord(item: Omit<Item, 'bytes' | 'at'>, body: string): EntryRecord {
  const r: EntryRecord = { k: 'e', p: item.pos, i: item.id, s: item.sequence, t: item.enqueued_at_unix_ms, r: item.replayed_at_unix_ms, b: body };
  if (item.attempts > 0) r.n = item.attempts;
  if (item.notBefore > 0) r.w = item.notBefore;
  if (item.dead) Object.assign(r, { x: item.dead.error, y: item.dead.at_unix_ms });
  return r;
}

export function toEntry({ id, sequence, enqueued_at_unix_ms, attempts, replayed_at_unix_ms }: Item, body: string): OutboxEntry {
  return { id, sequence, body, enqueued_at_unix_ms, attempts, replayed_at_unix_ms };
}

export function toDeadLetter(item: Item, body: string): DeadLetter {
  return { ...toEntry(item, body), error: item.dead!.error, dead_at_unix_ms: item.dead!.at_unix_ms };
}
