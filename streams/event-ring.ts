import { EVENT_TYPES, type EventType } from './contract.js';
import { PublishedEvent } from './published-event.js';

export interface EventRingOptions {
  /** Events kept at most. */
  capacity: number;
  /** Bytes of envelope JSON kept at most (the arena's size). */
  maxBytes: number;
}

const TYPE_INDEX = new Map<EventType, number>(EVENT_TYPES.map((t, i) => [t, i]));

/**
 * The replay ring: the most recent events' JSON, kept as UTF-8 in one arena with their
 * sequence, type and offsets in typed arrays. Keeping nothing on the JS heap per event
 * matters: a ring of 65k envelope objects, or of their JSON strings, is promoted to the
 * old generation and collected there, at a GC cost per flow. The oldest
 * events are dropped once `capacity` events are held or their bytes would be written
 * over; replay decodes what is left.
 */
export class EventRing {
  private readonly arena: Buffer;
  private readonly sequences: Float64Array;
  private readonly starts: Uint32Array;
  private readonly lengths: Uint32Array;
  private readonly sourceAts: Uint32Array;
  private readonly types: Uint8Array;
  /** Slot of the oldest event and the number held. */
  private first = 0;
  private size = 0;
  /** Where the next event's bytes go. */
  private writeAt = 0;
  private held = 0;

  constructor(private readonly opts: EventRingOptions) {
    const { capacity, maxBytes } = opts;
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('ring capacity must be a positive integer');
    if (!Number.isInteger(maxBytes) || maxBytes < 1 || maxBytes > 2 ** 32 - 1) throw new RangeError('ring bytes must be an integer from 1 to 2^32-1');
    // Touched once here: a page's first write costs a fault, which would otherwise land on
    // the first events of a busy node.
    this.arena = Buffer.allocUnsafe(maxBytes).fill(0);
    this.sequences = new Float64Array(capacity);
    this.starts = new Uint32Array(capacity);
    this.lengths = new Uint32Array(capacity);
    this.sourceAts = new Uint32Array(capacity);
    this.types = new Uint8Array(capacity);
  }

  /**
   * Keeps an event. One larger than the whole arena is not kept, and neither is
   * anything before it: the ring then starts after it, as replay's callers expect of
   * events that aged out.
   */
  push(event: PublishedEvent): void {
    const length = Buffer.byteLength(event.json, 'utf8');
    if (length > this.arena.length) {
      while (this.size > 0) this.dropOldest();
      return;
    }
    if (this.size === this.opts.capacity) this.dropOldest();
    const wraps = this.writeAt + length > this.arena.length;
    const start = wraps ? 0 : this.writeAt;
    // Events are laid out in sequence order, so those written over are the oldest.
    while (this.size > 0 && this.overwrites(this.starts[this.first] as number, start + length, wraps)) this.dropOldest();
    this.arena.write(event.json, start, 'utf8');
    const slot = (this.first + this.size) % this.opts.capacity;
    this.sequences[slot] = event.sequence;
    this.starts[slot] = start;
    this.lengths[slot] = length;
    this.sourceAts[slot] = event.sourceAt;
    this.types[slot] = TYPE_INDEX.get(event.event_type) ?? 0;
    this.size++;
    this.held += length;
    this.writeAt = start + length;
  }

  /** Sequence of the oldest event still held, or null when empty. */
  get oldestSequence(): number | null {
    return this.size === 0 ? null : (this.sequences[this.first] as number);
  }

  get length(): number {
    return this.size;
  }

  /** Bytes of JSON held. */
  get bytes(): number {
    return this.held;
  }

  /** Events with sequence > `since` whose type is accepted, oldest first, at most `limit`. */
  after(since: number, accept: (type: EventType) => boolean = () => true, limit = Infinity): PublishedEvent[] {
    const out: PublishedEvent[] = [];
    for (const slot of this.slotsAfter(since, accept, limit)) {
      const start = this.starts[slot] as number;
      const json = this.arena.toString('utf8', start, start + (this.lengths[slot] as number));
      out.push(new PublishedEvent(this.sequences[slot] as number, EVENT_TYPES[this.types[slot] as number] as EventType, json, this.sourceAts[slot] as number));
    }
    return out;
  }

  /**
   * The same events' JSON as UTF-8 views into the arena, not decoded: for a reader that
   * copies them out at once (they are written over as the ring moves on).
   */
  bytesAfter(since: number, accept: (type: EventType) => boolean = () => true, limit = Infinity): Buffer[] {
    const out: Buffer[] = [];
    for (const slot of this.slotsAfter(since, accept, limit)) {
      const start = this.starts[slot] as number;
      out.push(this.arena.subarray(start, start + (this.lengths[slot] as number)));
    }
    return out;
  }

  private *slotsAfter(since: number, accept: (type: EventType) => boolean, limit: number): Generator<number> {
    let taken = 0;
    for (let i = this.firstIndexAfter(since); i < this.size && taken < limit; i++) {
      const slot = this.slot(i);
      if (!accept(EVENT_TYPES[this.types[slot] as number] as EventType)) continue;
      taken++;
      yield slot;
    }
  }

  /**
   * Whether writing up to `end` overwrites the event starting at `start`. Held events
   * end at writeAt; a write that wraps also gives up the arena's tail after writeAt.
   */
  private overwrites(start: number, end: number, wraps: boolean): boolean {
    if (wraps) return start >= this.writeAt || start < end;
    return start >= this.writeAt && start < end;
  }

  private dropOldest(): void {
    this.held -= this.lengths[this.first] as number;
    this.first = (this.first + 1) % this.opts.capacity;
    this.size--;
  }

  private slot(i: number): number {
    return (this.first + i) % this.opts.capacity;
  }

  /** Binary search: sequences in the ring are strictly increasing. */
  private firstIndexAfter(since: number): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.sequences[this.slot(mid)] as number) <= since) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
