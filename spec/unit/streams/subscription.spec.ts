import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope, FlowRecord } from '../../../streams/contract.js';
import type { PublishedEvent } from '../../../streams/published-event.js';
import { EventBus } from '../../../streams/event-bus.js';
import { RECORDS_PER_SLICE } from '../../../streams/text-slices.js';
import { resumeEvents } from '../../../streams/subscription.js';
import { typeFilter } from '../../../streams/type-filter.js';
import { activeRecord, countedRecords } from '../flows/fixtures.js';

const NOW = 1_700_000_000_000;

function setup(records: FlowRecord[] = [activeRecord('f-1')]): { bus: EventBus; active: () => FlowRecord[] } {
  return { bus: new EventBus({ ringCapacity: 64, ringMaxBytes: 1 << 16, now: () => NOW }), active: () => records };
}

/** Lets a baseline written a slice at a time reach its subscriber. */
const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const summary = (events: PublishedEvent[]): string[] => events.map((e) => `${e.sequence} ${e.event_type}`);

function publish(bus: EventBus, ...types: Envelope['event_type'][]): void {
  for (const event_type of types) bus.publish({ event_type, payload: {} });
}

test('replays after since, then the snapshot at the watermark, then live events', async () => {
  const { bus, active } = setup();
  publish(bus, 'engine.started', 'flow.started', 'flow.routed');
  const got: PublishedEvent[] = [];
  const sub = resumeEvents(bus, active, { filter: null, since: 1 }).events$.subscribe((e) => got.push(e));
  await settled();
  publish(bus, 'flow.updated', 'stats.sampled');
  sub.unsubscribe();
  publish(bus, 'flow.completed');
  assert.equal(summary(got), ['2 flow.started', '3 flow.routed', '3 flow.snapshot', '4 flow.updated', '5 stats.sampled']);
  assert.equal(got[2]!.envelope().payload, { watermark: 3, records: active() });
});

test('without since there is no replay; null since is the same', async () => {
  for (const since of [undefined, null]) {
    const { bus, active } = setup();
    publish(bus, 'engine.started', 'flow.started');
    const got: PublishedEvent[] = [];
    resumeEvents(bus, active, { filter: null, since }).events$.subscribe((e) => got.push(e));
    publish(bus, 'flow.routed');
    await settled();
    assert.equal(summary(got), ['2 flow.snapshot', '3 flow.routed'], String(since));
  }
});

test('since 0 replays the whole ring', async () => {
  const { bus, active } = setup();
  publish(bus, 'engine.started', 'flow.started');
  const got: PublishedEvent[] = [];
  resumeEvents(bus, active, { filter: null, since: 0 }).events$.subscribe((e) => got.push(e));
  await settled();
  assert.equal(summary(got), ['1 engine.started', '2 flow.started', '2 flow.snapshot']);
});

test('a since beyond the last sequence (Last-Event-ID of an earlier run) replays this run from its start', async () => {
  const { bus } = setup();
  publish(bus, 'engine.started', 'stats.sampled');
  const got: PublishedEvent[] = [];
  resumeEvents(bus, null, { filter: null, since: 1067 }).events$.subscribe((e) => got.push(e));
  publish(bus, 'stats.sampled');
  assert.equal(summary(got), ['1 engine.started', '2 stats.sampled', '3 stats.sampled']);
});

test('a since older than the ring has the replay gap up to the oldest event held, then replays the ring', () => {
  const bus = new EventBus({ ringCapacity: 3, ringMaxBytes: 1 << 16, now: () => NOW });
  publish(bus, 'engine.started', 'stats.sampled', 'flow.started', 'flow.completed', 'stats.sampled', 'flow.completed');
  const got: PublishedEvent[] = [];
  const { gap, events$ } = resumeEvents(bus, null, { filter: null, since: 1 });
  events$.subscribe((e) => got.push(e));
  assert.equal(gap, { from_sequence: 2, to_sequence: 3 });
  assert.equal(summary(got), ['4 flow.completed', '5 stats.sampled', '6 flow.completed']);
});

test('with a type filter the gap is the same sequences, though few of them may be of its types', () => {
  const bus = new EventBus({ ringCapacity: 3, ringMaxBytes: 1 << 16, now: () => NOW });
  publish(bus, 'engine.started', 'flow.completed', 'stats.sampled', 'stats.sampled', 'flow.completed', 'stats.sampled');
  const got: PublishedEvent[] = [];
  const { gap, events$ } = resumeEvents(bus, null, { filter: typeFilter(['flow.completed']), since: 0 });
  events$.subscribe((e) => got.push(e));
  assert.equal(gap, { from_sequence: 1, to_sequence: 3 });
  assert.equal(summary(got), ['5 flow.completed']);
});

test('no gap without since, or with a since the ring still holds the events after', () => {
  const bus = new EventBus({ ringCapacity: 3, ringMaxBytes: 1 << 16, now: () => NOW });
  publish(bus, 'engine.started', 'stats.sampled', 'stats.sampled', 'stats.sampled', 'stats.sampled');
  for (const since of [undefined, null, 2, 3, 5]) assert.is(resumeEvents(bus, null, { filter: null, since }).gap, null, String(since));
});

test('a since beyond the last sequence resumes from the start of this run, and its gap is counted from there', () => {
  const bus = new EventBus({ ringCapacity: 2, ringMaxBytes: 1 << 16, now: () => NOW });
  publish(bus, 'engine.started', 'stats.sampled', 'stats.sampled', 'stats.sampled');
  const got: PublishedEvent[] = [];
  const { gap, events$ } = resumeEvents(bus, null, { filter: null, since: 1067 });
  events$.subscribe((e) => got.push(e));
  assert.equal(gap, { from_sequence: 1, to_sequence: 2 });
  assert.equal(summary(got), ['3 stats.sampled', '4 stats.sampled']);
});

test('the filter applies to replay and live events alike', async () => {
  const { bus, active } = setup();
  publish(bus, 'engine.started', 'flow.started', 'stats.sampled');
  const got: PublishedEvent[] = [];
  resumeEvents(bus, active, { filter: typeFilter(['flow.started', 'flow.completed']), since: 0 }).events$.subscribe((e) =>
    got.push(e),
  );
  publish(bus, 'stats.sampled', 'flow.completed');
  await settled();
  assert.equal(summary(got), ['2 flow.started', '3 flow.snapshot', '5 flow.completed']);
});

test('no snapshot when the whitelist has no flow types', async () => {
  const { bus, active } = setup();
  publish(bus, 'engine.started');
  const got: PublishedEvent[] = [];
  resumeEvents(bus, active, { filter: typeFilter(['stats.sampled', 'engine.started']), since: 0 }).events$.subscribe((e) =>
    got.push(e),
  );
  publish(bus, 'flow.started', 'stats.sampled');
  assert.equal(summary(got), ['1 engine.started', '3 stats.sampled']);
});

test('no snapshot without active records (a sink), whatever the filter', async () => {
  const { bus } = setup();
  publish(bus, 'flow.started');
  const got: PublishedEvent[] = [];
  resumeEvents(bus, null, { filter: null, since: 0 }).events$.subscribe((e) => got.push(e));
  publish(bus, 'flow.completed');
  assert.equal(summary(got), ['1 flow.started', '2 flow.completed']);
});

test('a snapshot for *, an empty list and null', async () => {
  for (const filter of [typeFilter(['*']), typeFilter([]), null]) {
    const { bus, active } = setup();
    const got: PublishedEvent[] = [];
    resumeEvents(bus, active, { filter }).events$.subscribe((e) => got.push(e));
    await settled();
    assert.equal(summary(got), ['0 flow.snapshot']);
  }
});

test('the snapshot reads the active records when the subscription starts', async () => {
  const records: FlowRecord[] = [];
  const { bus } = setup();
  const stream = resumeEvents(bus, () => [...records], { filter: null }).events$;
  records.push(activeRecord('f-1'), activeRecord('f-2'));
  let snapshot: PublishedEvent | undefined;
  stream.subscribe((e) => (snapshot ??= e));
  await settled();
  assert.equal((snapshot!.envelope().payload as { records: FlowRecord[] }).records, records);
});

test('no gap and no duplicate when events are published while the baseline is delivered', async () => {
  const { bus, active } = setup();
  publish(bus, 'flow.started', 'flow.routed');
  const got: PublishedEvent[] = [];
  resumeEvents(bus, active, { filter: null, since: 0 }).events$.subscribe((e) => {
    got.push(e);
    // A consumer whose own reaction publishes, e.g. a warning about a slow client.
    if (e.sequence === 1 && e.event_type === 'flow.started') publish(bus, 'engine.warning');
    if (e.event_type === 'flow.snapshot') publish(bus, 'flow.updated');
  });
  publish(bus, 'flow.completed');
  await settled();
  const live = got.filter((e) => e.event_type !== 'flow.snapshot').map((e) => e.sequence);
  assert.equal(live, [1, 2, 3, 4, 5], summary(got).join(', '));
});

test('a bus that completes while the baseline is delivered completes after the queued events', async () => {
  const { bus, active } = setup();
  publish(bus, 'flow.started');
  const got: string[] = [];
  resumeEvents(bus, active, { filter: null, since: 0 }).events$.subscribe({
    next: (e) => {
      got.push(`${e.sequence} ${e.event_type}`);
      if (e.event_type === 'flow.started') {
        publish(bus, 'engine.stopped');
        bus.complete();
      }
    },
    complete: () => got.push('complete'),
  });
  await settled();
  assert.equal(got, ['1 flow.started', '1 flow.snapshot', '2 engine.stopped', 'complete']);
});

test('concurrent subscriptions each see every live event once', async () => {
  const { bus, active } = setup();
  const a: PublishedEvent[] = [];
  const b: PublishedEvent[] = [];
  resumeEvents(bus, active, { filter: null }).events$.subscribe((e) => a.push(e));
  publish(bus, 'flow.started');
  resumeEvents(bus, active, { filter: null, since: 0 }).events$.subscribe((e) => b.push(e));
  publish(bus, 'flow.routed');
  await settled();
  assert.equal(summary(a), ['0 flow.snapshot', '1 flow.started', '2 flow.routed']);
  assert.equal(summary(b), ['1 flow.started', '1 flow.snapshot', '2 flow.routed']);
});

test('events published while a large baseline is written queue behind it, after its watermark', async () => {
  const records = Array.from({ length: 3 * RECORDS_PER_SLICE }, (_, i) => activeRecord(`f-${i}`));
  const { bus } = setup(records);
  publish(bus, 'flow.started');
  const got: PublishedEvent[] = [];
  resumeEvents(bus, () => records, { filter: null }).events$.subscribe((e) => got.push(e));
  publish(bus, 'flow.updated');
  // Published between two slices of the baseline.
  await settled();
  assert.equal(got, [], 'the baseline takes more than one turn');
  publish(bus, 'flow.completed');
  while (got.length < 3) await settled();
  assert.equal(summary(got), ['1 flow.snapshot', '2 flow.updated', '3 flow.completed']);
  assert.equal(got[0]!.envelope().payload, { watermark: 1, records });
});

test('a subscription that ends while its baseline is written gets nothing, and the writing stops', async () => {
  const { records, serializations } = countedRecords(3 * RECORDS_PER_SLICE);
  const { bus } = setup(records);
  const got: PublishedEvent[] = [];
  const sub = resumeEvents(bus, () => records, { filter: null }).events$.subscribe((e) => got.push(e));
  await settled();
  sub.unsubscribe();
  publish(bus, 'flow.updated');
  for (let i = 0; i < 5; i++) await settled();
  assert.equal(got, []);
  assert.ok(serializations() < records.length, `${serializations()} of ${records.length} records written after the end`);
});

test.run();
