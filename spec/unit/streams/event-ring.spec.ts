import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { EventType } from '../../../streams/contract.js';
import { EventRing } from '../../../streams/event-ring.js';
import type { PublishedEvent } from '../../../streams/published-event.js';
import { published } from '../../support/published.js';

/** An event whose JSON is `pad` characters longer than the bare envelope. */
function event(sequence: number, pad = 0, event_type: EventType = 'stats.sampled', text = 'x'): PublishedEvent {
  return published(sequence, event_type, { pad: text.repeat(pad) });
}

function ring(capacity: number, sequences: number[], maxBytes = 1 << 20): EventRing {
  const r = new EventRing({ capacity, maxBytes });
  for (const sequence of sequences) r.push(event(sequence));
  return r;
}

const seqs = (items: PublishedEvent[]): number[] => items.map((i) => i.sequence);
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
/** Bytes of one event(sequence, 0) with a one-digit sequence. */
const BARE = Buffer.byteLength(event(1).json);

test('refuses a capacity or a size that is not a positive integer', () => {
  for (const capacity of [0, -1, 1.5]) assert.throws(() => new EventRing({ capacity, maxBytes: 100 }), RangeError);
  for (const maxBytes of [0, -1, 1.5]) assert.throws(() => new EventRing({ capacity: 4, maxBytes }), RangeError);
});

test('an empty ring has no oldest sequence and replays nothing', () => {
  const r = ring(4, []);
  assert.is(r.oldestSequence, null);
  assert.is(r.length, 0);
  assert.equal(r.after(0), []);
});

test('replays each event exactly as it was published', () => {
  const r = new EventRing({ capacity: 8, maxBytes: 4096 });
  const sent = [event(1, 3, 'flow.started', 'ü'), event(2, 2, 'flow.completed', '😀'), event(3)];
  for (const e of sent) r.push(e);
  const got = r.after(0);
  assert.equal(
    got.map((e) => [e.sequence, e.event_type, e.json, e.event_id, e.withSource('"n"')]),
    sent.map((e) => [e.sequence, e.event_type, e.json, e.event_id, e.withSource('"n"')]),
  );
  assert.is(r.bytes, sent.reduce((n, e) => n + Buffer.byteLength(e.json), 0));
});

test('keeps every event below capacity', () => {
  const r = ring(4, [1, 2, 3]);
  assert.is(r.length, 3);
  assert.is(r.oldestSequence, 1);
  assert.equal(seqs(r.after(0)), [1, 2, 3]);
});

test('drops the oldest events once capacity is reached', () => {
  const r = ring(3, range(1, 5));
  assert.is(r.length, 3);
  assert.is(r.oldestSequence, 3);
  assert.equal(seqs(r.after(0)), [3, 4, 5]);
});

test('after(since) finds the first later event for every since across the wraparound', () => {
  // capacity 5 after 12 pushes: the oldest event sits in the middle of the slots.
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

test('the accept predicate sees the type and limit counts accepted events only', () => {
  const r = new EventRing({ capacity: 8, maxBytes: 1 << 16 });
  for (const s of range(3, 10)) r.push(event(s, 0, s % 2 === 0 ? 'flow.started' : 'stats.sampled'));
  const started = (t: EventType): boolean => t === 'flow.started';
  assert.equal(seqs(r.after(0, started)), [4, 6, 8, 10]);
  assert.equal(seqs(r.after(4, started, 2)), [6, 8]);
  assert.equal(seqs(r.after(0, () => true, 3)), [3, 4, 5]);
  assert.equal(seqs(r.after(0, () => true, 0)), []);
});

test('bytesAfter gives the same events as after, as their UTF-8 JSON undecoded', () => {
  const r = new EventRing({ capacity: 8, maxBytes: 1 << 16 });
  for (const s of range(3, 10)) r.push(event(s, 3, s % 2 === 0 ? 'flow.started' : 'stats.sampled', 'ü'));
  const started = (t: EventType): boolean => t === 'flow.started';
  for (const [since, accept, limit] of [[0, () => true, Infinity], [4, started, 2], [0, started, 0]] as const) {
    const decoded = r.after(since, accept, limit).map((e) => e.json);
    assert.equal(r.bytesAfter(since, accept, limit).map((b) => b.toString('utf8')), decoded);
  }
});

test('drops the oldest events whose bytes the next one would write over', () => {
  // Room for three bare events and a bit: the fourth wraps to the start and takes the first's place.
  const r = ring(100, [1, 2, 3], 3 * BARE + 10);
  assert.equal(seqs(r.after(0)), [1, 2, 3]);
  r.push(event(4));
  assert.equal(seqs(r.after(0)), [2, 3, 4]);
  r.push(event(5));
  assert.equal(seqs(r.after(0)), [3, 4, 5]);
  for (const e of r.after(0)) assert.is(e.json, event(e.sequence).json);
});

test('a wrapping write gives up the events in the arena tail, which are older, before those it overwrites', () => {
  const r = new EventRing({ capacity: 100, maxBytes: 4 * BARE + 5 });
  for (const s of [1, 2, 3, 4]) r.push(event(s));
  // Event 5 is larger: it wraps and overwrites 1 and 2.
  r.push(event(5, BARE));
  assert.equal(seqs(r.after(0)), [3, 4, 5]);
  // Event 6 fits after 5 and overwrites 3; 7 then wraps: it gives up 4 in the tail and overwrites 5, not 6.
  r.push(event(6));
  assert.equal(seqs(r.after(0)), [4, 5, 6]);
  r.push(event(7, BARE));
  assert.equal(seqs(r.after(0)), [6, 7]);
  assert.equal(
    r.after(0).map((e) => e.json),
    [event(6).json, event(7, BARE).json],
  );
});

test('an event larger than the arena is not kept and the ring starts after it', () => {
  const r = ring(10, [1, 2], 3 * BARE);
  r.push(event(3, 4 * BARE));
  assert.is(r.oldestSequence, null);
  assert.equal(r.after(0), []);
  r.push(event(4));
  assert.equal(seqs(r.after(0)), [4]);
  assert.is(r.bytes, BARE);
});

test('many events through a small arena always replay intact and in order', () => {
  const r = new EventRing({ capacity: 50, maxBytes: 5000 });
  for (let s = 1; s <= 2000; s++) {
    r.push(event(s, (s * 7) % 300, 'flow.updated', s % 3 === 0 ? 'é' : 'a'));
    const held = r.after(0);
    const first = held[0]?.sequence ?? s;
    assert.equal(seqs(held), range(first, s));
    assert.ok(r.bytes <= 5000);
  }
  for (const e of r.after(0)) assert.is(e.json, event(e.sequence, (e.sequence * 7) % 300, 'flow.updated', e.sequence % 3 === 0 ? 'é' : 'a').json);
});

test.run();
