import type { StoredEntry } from './lmdb-records.js';

/** A stored entry with its body's UTF-8 size. */
export interface Held {
  stored: StoredEntry;
  bytes: number;
}

/**
 * The entries an embedded outbox appended and still holds pending, up to maxBytes of
 * bodies: a lease of them takes them from here instead of reading and decoding their
 * records. The records stay the truth; an entry missing here (past the bound, or from
 * an earlier run) is read from LMDB.
 */
export class RecentEntries {
  private readonly held = new Map<number, Held>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  add(pos: number, entry: Held): void {
    if (this.bytes + entry.bytes > this.maxBytes) return;
    this.held.set(pos, entry);
    this.bytes += entry.bytes;
  }

  get(pos: number): Held | undefined {
    return this.held.get(pos);
  }

  delete(pos: number): void {
    const entry = this.held.get(pos);
    if (!entry) return;
    this.held.delete(pos);
    this.bytes -= entry.bytes;
  }

  clear(): void {
    this.held.clear();
    this.bytes = 0;
  }
}
