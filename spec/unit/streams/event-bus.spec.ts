import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../../streams/contract.js';
import type { PublishedEvent } from '../../../streams/published-event.js';
import { EventBus } from '../../../streams/event-bus.js';
import { typeFilter } from '../../../streams/type-filter.js';
import { activeRecord } from '../flows/fixtures.js';

const NOW = 1_700_000_000_000;

function bus(capacity = 16): EventBus {
  return new EventBus({ ringCapacity: capacity, ringMaxBytes: 1 << 16, now: () => NOW });
}

function publishTypes(b: EventBus, types: Envelope['event_type'][]): PublishedEvent[] {
  return types.map((event_type) => b.publish({ event_type, payload: {} }));
}

test('gives sequences 1, 2, 3… and reports the last one', () => {
  const b = bus();
  assert.is(b.lastSequence, 0);
  const sent = publishTypes(b, ['engine.started', 'stats.sampled', 'stats.sampled']);
  assert.equal(
    sent.map((e) => e.sequence),
    [1, 2, 3],
  );
  assert.is(b.lastSequence, 3);
});

test('wraps an event in exactly the envelope fields of the contract', () => {
  const b = bus();
  const payload = { build_id: 'abc', started_at_unix_ms: NOW };
  const published = b.publish({ event_type: 'engine.started', payload });
  const e = published.envelope();
  assert.equal(e, {
    schema_id: 'node.event.v1',
    event_id: published.event_id,
    event_type: 'engine.started',
    occurred_at_unix_ms: NOW,
    source_id: null,
    sequence: 1,
    principal_key: null,
    labels: {},
    payload,
  });
  assert.type(e.event_id, 'string');
  assert.ok(e.event_id.length > 0);
});

test('event ids are unique within a bus and across two buses started at the same time', async () => {
  const a = bus();
  const b = bus();
  const ids = [...publishTypes(a, ['stats.sampled', 'stats.sampled']), ...publishTypes(b, ['stats.sampled', 'stats.sampled'])].map(
    (e) => e.event_id,
  );
  for (const snapshot of [a.snapshot([]), a.snapshot([]), b.snapshot([])]) ids.push((await snapshot)!.event_id);
  assert.is(new Set(ids).size, ids.length);
});

test('occurred_at defaults to the publish time and takes an override', () => {
  let now = NOW;
  const b = new EventBus({ ringCapacity: 4, ringMaxBytes: 1 << 16, now: () => now });
  now = NOW + 5;
  assert.is(b.publish({ event_type: 'stats.sampled', payload: {} }).envelope().occurred_at_unix_ms, NOW + 5);
  assert.is(b.publish({ event_type: 'flow.completed', payload: {}, occurred_at_unix_ms: NOW - 7 }).envelope().occurred_at_unix_ms, NOW - 7);
});

test('principal_key defaults to null and is kept when given', () => {
  const b = bus();
  assert.is(b.publish({ event_type: 'flow.started', payload: {}, principal_key: 'alice' }).envelope().principal_key, 'alice');
  assert.is(b.publish({ event_type: 'flow.started', payload: {}, principal_key: null }).envelope().principal_key, null);
});

test('multicasts each published envelope to live subscribers and completes them', () => {
  const b = bus();
  const first: PublishedEvent[] = [];
  const second: PublishedEvent[] = [];
  let completed = 0;
  b.events$.subscribe({ next: (e) => first.push(e), complete: () => completed++ });
  b.events$.subscribe({ next: (e) => second.push(e), complete: () => completed++ });
  const sent = publishTypes(b, ['engine.started', 'flow.started']);
  b.complete();
  assert.equal(first, sent);
  assert.is(second[1], sent[1]);
  assert.is(completed, 2);
});

test('replay returns ring events after since that pass the filter, up to limit', () => {
  const b = bus();
  publishTypes(b, ['engine.started', 'flow.started', 'stats.sampled', 'flow.completed', 'flow.started', 'stats.sampled']);
  assert.equal(
    b.replay(0, null).map((e) => e.sequence),
    [1, 2, 3, 4, 5, 6],
  );
  assert.equal(
    b.replay(2, null).map((e) => e.sequence),
    [3, 4, 5, 6],
  );
  const flows = typeFilter(['flow.started', 'flow.completed']);
  assert.equal(
    b.replay(0, flows).map((e) => e.sequence),
    [2, 4, 5],
  );
  assert.equal(
    b.replay(2, flows, 1).map((e) => e.sequence),
    [4],
  );
  assert.equal(b.replay(6, null), []);
});

test('replay serves only what the ring still holds', () => {
  const b = bus(3);
  publishTypes(b, ['stats.sampled', 'stats.sampled', 'stats.sampled', 'stats.sampled', 'stats.sampled']);
  assert.is(b.oldestSequence, 3);
  assert.equal(
    b.replay(0, null).map((e) => e.sequence),
    [3, 4, 5],
  );
});

test('lostAfter names the sequences after since that left the ring, and null while it holds them all', () => {
  const b = bus(3);
  assert.is(b.lostAfter(0), null, 'nothing published');
  publishTypes(b, ['stats.sampled', 'stats.sampled', 'stats.sampled', 'stats.sampled', 'stats.sampled']);
  assert.equal(b.lostAfter(0), { from_sequence: 1, to_sequence: 2 });
  assert.equal(b.lostAfter(1), { from_sequence: 2, to_sequence: 2 });
  assert.is(b.lostAfter(2), null);
  assert.is(b.lostAfter(5), null);
});

test('a snapshot is an envelope at the watermark that is neither published nor kept', async () => {
  const b = bus();
  publishTypes(b, ['engine.started', 'flow.started']);
  const live: PublishedEvent[] = [];
  b.events$.subscribe((e) => live.push(e));
  const records = [activeRecord('f-1'), activeRecord('f-2')];
  const published = (await b.snapshot(records))!;
  const snap = published.envelope();
  assert.equal(snap, {
    schema_id: 'node.event.v1',
    event_id: published.event_id,
    event_type: 'flow.snapshot',
    occurred_at_unix_ms: NOW,
    source_id: null,
    sequence: 2,
    principal_key: null,
    labels: {},
    payload: { watermark: 2, records },
  });
  assert.is(b.lastSequence, 2);
  assert.equal(live, []);
  assert.equal(
    b.replay(0, null).map((e) => e.event_type),
    ['engine.started', 'flow.started'],
  );
  assert.is(b.publish({ event_type: 'flow.routed', payload: {} }).sequence, 3);
});

test('the JSON of an event is JSON.stringify of its envelope, and the sink form differs only in source_id', () => {
  const b = bus();
  const payload = { flow_id: 'f-1', host: 'büro.example', note: 'a "quoted"\nline', source_id: null, nested: { source_id: 'x' } };
  const published = b.publish({ event_type: 'flow.started', payload, principal_key: 'al"ice' });
  const envelope = published.envelope();
  assert.is(published.json, JSON.stringify(envelope));
  assert.equal(envelope.payload, payload);
  assert.equal(JSON.parse(published.withSource(JSON.stringify('edge-"1"'))), { ...envelope, source_id: 'edge-"1"' });
  assert.is(published.withSource('"n"'), JSON.stringify({ ...envelope, source_id: 'n' }));
});

test('a payload JSON made by the publisher is the envelope payload as is, and the ring keeps it', () => {
  const b = bus();
  const payload = { flow_id: 'f-1' };
  const published = b.publish({ event_type: 'flow.started', payload, writePayload: (out) => out.add('{"flow_id":"f-1","made":"by the publisher"}') });
  assert.equal(published.envelope().payload, { flow_id: 'f-1', made: 'by the publisher' });
  assert.is(b.replay(0, null)[0]?.json, published.json);
  assert.is(JSON.parse(published.withSource('"n"')).source_id, 'n');
});

test('the ring is bounded by the bytes of JSON it holds as well as by count', () => {
  const b = new EventBus({ ringCapacity: 100, ringMaxBytes: 1000, now: () => NOW });
  const sizes = publishTypes(b, Array.from({ length: 20 }, () => 'stats.sampled' as const)).map((e) => e.json.length);
  const kept = b.replay(0, null);
  assert.ok(kept.length < 20, `kept ${kept.length}`);
  assert.ok(kept.reduce((n, e) => n + e.json.length, 0) <= 1000);
  // One more would not have fitted: the ring dropped no more than it had to.
  assert.ok(kept.reduce((n, e) => n + e.json.length, 0) + (sizes[0] ?? 0) > 1000);
  assert.is(kept[kept.length - 1]?.sequence, 20);
});

test.run();
