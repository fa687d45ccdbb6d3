/**
 * A bounded ring of the most recent items, kept in sequence order. Older items are
 * overwritten once `capacity` is reached; replay serves what is left.
 */
export class EventRing<T extends { sequence: number }> {
  private readonly items: (T | undefined)[];
  private start = 0;
  private size = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('ring capacity must be a positive integer');
    this.items = new Array<T | undefined>(capacity);
  }

  push(item: T): void {
    const end = (this.start + this.size) % this.capacity;
    this.items[end] = item;
    if (this.size < this.capacity) this.size++;
    else this.start = (this.start + 1) % this.capacity;
  }

  /** Sequence of the oldest item still held, or null when empty. */
  get oldestSequence(): number | null {
    return this.size === 0 ? null : this.at(0).sequence;
  }

  get length(): number {
    return this.size;
  }

  /** Items with sequence > `since`, oldest first, at most `limit` of those accepted. */
  after(since: number, accept: (item: T) => boolean = () => true, limit = Infinity): T[] {
    const out: T[] = [];
    for (let i = this.firstIndexAfter(since); i < this.size && out.length < limit; i++) {
      const item = this.at(i);
      if (accept(item)) out.push(item);
    }
    return out;
  }

  private at(i: number): T {
    return this.items[(this.start + i) % this.capacity] as T;
  }

  /** Binary search: sequences in the ring are strictly increasing. */
  private firstIndexAfter(since: number): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid).sequence <= since) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
