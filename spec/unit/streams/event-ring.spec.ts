import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventRing } from '../../../streams/event-ring.js';

type Item = { sequence: number };

function ring(capacity: number, sequences: number[]): EventRing<Item> {
  const r = new EventRing<Item>(capacity);
  for (const sequence of sequences) r.push({ sequence });
  return r;
}

const seqs = (items: Item[]): number[] => items.map((i) => i.sequence);
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

test('refuses a capacity that is not a positive integer', () => {
  assert.throws(() => new EventRing<Item>(0), RangeError);
  assert.throws(() => new EventRing<Item>(-1), RangeError);
  assert.throws(() => new EventRing<Item>(1.5), RangeError);
});

test('an empty ring has no oldest sequence and replays nothing', () => {
  const r = ring(4, []);
  assert.is(r.oldestSequence, null);
  assert.is(r.length, 0);
  assert.equal(r.after(0), []);
});

test('keeps every item below capacity', () => {
  const r = ring(4, [1, 2, 3]);
  assert.is(r.length, 3);
  assert.is(r.oldestSequence, 1);
  assert.equal(seqs(r.after(0)), [1, 2, 3]);
});

test('overwrites the oldest items once full', () => {
  const r = ring(3, range(1, 5));
  assert.is(r.length, 3);
  assert.is(r.oldestSequence, 3);
  assert.equal(seqs(r.after(0)), [3, 4, 5]);
});

test('after(since) finds the first later item for every since across the wraparound', () => {
  // capacity 5 after 12 pushes: the oldest item sits in the middle of the storage.
  const r = ring(5, range(1, 12));
  for (let since = -1; since <= 13; since++) {
    const expected = range(8, 12).filter((s) => s > since);
    assert.equal(seqs(r.after(since)), expected, `since=${since}`);
  }
});

test('after(since) works with gaps between sequences', () => {
  const r = ring(4, [2, 4, 6, 8, 10, 12]);
  assert.equal(seqs(r.after(5)), [6, 8, 10, 12]);
  assert.equal(seqs(r.after(6)), [8, 10, 12]);
  assert.equal(seqs(r.after(11)), [12]);
  assert.equal(seqs(r.after(12)), []);
});

test('the accept predicate filters and limit counts accepted items only', () => {
  const r = ring(8, range(1, 10));
  const even = (i: Item): boolean => i.sequence % 2 === 0;
  assert.equal(seqs(r.after(0, even)), [4, 6, 8, 10]);
  assert.equal(seqs(r.after(4, even, 2)), [6, 8]);
  assert.equal(seqs(r.after(0, () => true, 3)), [3, 4, 5]);
  assert.equal(seqs(r.after(0, () => true, 0)), []);
});

test.run();
