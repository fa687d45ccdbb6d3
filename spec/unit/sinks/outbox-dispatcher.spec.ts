import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Outbox, OutboxAppend } from '../../../actors/contracts/outbox.js';
import { JournalOutboxStore } from '../../../actors/outbox/journal-outbox-store.js';
import { OutboxDispatcher } from '../../../actors/sinks/outbox-dispatcher.js';
import type { BusEvent, EventType } from '../../../streams/contract.js';
import { EventBus } from '../../../streams/event-bus.js';
import { tempDir } from '../../support/temp-dir.js';
import { waitFor } from '../../support/wait-for.js';
import { withClosing } from '../../support/with-closing.js';
import { ROOMY } from '../outbox/outbox-contract.js';

interface Rig {
  bus: EventBus;
  outbox: Outbox;
  warnings: BusEvent[];
  dispatcher(): OutboxDispatcher;
  /** The sequences the outbox holds, oldest append first. */
  held(): Promise<number[]>;
  close(): Promise<void>;
}

/** A real bus and a real embedded outbox for the sink `billing` of flow.completed. */
async function rig(ringCapacity = 1024, batching: { maxQueued?: number; batchMs?: number } = {}): Promise<Rig> {
  const bus = new EventBus({ ringCapacity, ringMaxBytes: 1 << 20 });
  const store = new JournalOutboxStore({ stateDir: tempDir('weir-dispatcher-'), limits: ROOMY });
  const outbox = await store.open('billing');
  const warnings: BusEvent[] = [];
  return {
    bus,
    outbox,
    warnings,
    // A window far longer than any test step: only stop() can hand it over.
    dispatcher: () =>
      new OutboxDispatcher({ sink: 'billing', nodeId: 'n1', events: ['flow.completed'], bus, outbox, publish: (e) => warnings.push(e), batchMs: 60_000, ...batching }),
    held: async () => (await outbox.lease(10_000)).map((e) => e.sequence),
    close: () => store.close(),
  };
}

/** Runs `hook` before each append reaches the real outbox: it can see the entries, hold the append up or fail it. */
function beforeAppend(outbox: Outbox, hook: (entries: readonly OutboxAppend[], nth: number) => void | Promise<void>): void {
  const append = outbox.append.bind(outbox);
  let nth = 0;
  outbox.append = async (entries) => {
    await hook(entries, ++nth);
    return append(entries);
  };
}

function publish(bus: EventBus, types: EventType[]): void {
  for (const event_type of types) bus.publish({ event_type, payload: {} });
}

test('stop hands the open batch window to the outbox and says which sequence it took events through', withClosing(() => rig(), async (r) => {
  const d = r.dispatcher();
  d.start();
  publish(r.bus, ['flow.completed', 'stats.sampled', 'flow.completed', 'engine.stopped']);
  assert.is(await d.stop(), 4);
  assert.equal(await r.held(), [1, 3]);
}));

test('takes nothing after stop()', withClosing(() => rig(), async (r) => {
  const d = r.dispatcher();
  d.start();
  publish(r.bus, ['flow.completed']);
  const stopping = d.stop();
  publish(r.bus, ['flow.completed']);
  assert.is(await stopping, 1);
  assert.equal(await r.held(), [1]);
}));

test('a start after `since` takes the events published since from the ring, then live ones', withClosing(() => rig(), async (r) => {
  publish(r.bus, ['flow.completed', 'flow.completed', 'stats.sampled', 'flow.completed']);
  const d = r.dispatcher();
  d.start(1);
  publish(r.bus, ['flow.completed']);
  await d.stop();
  assert.equal(await r.held(), [2, 4, 5]);
  assert.is((await r.outbox.state()).replay_gaps, 0);
}));

test('a start with a long replay appends it in parts of at most 1000 entries', withClosing(() => rig(4096), async (r) => {
  publish(r.bus, Array<EventType>(2500).fill('flow.completed'));
  const sizes: number[] = [];
  beforeAppend(r.outbox, (entries) => void sizes.push(entries.length));
  const d = r.dispatcher();
  d.start(0);
  await d.stop();
  assert.equal(sizes, [1000, 1000, 500]);
  const held = await r.held();
  assert.equal(held, Array.from({ length: 2500 }, (_, i) => i + 1));
}));

test('what left the ring before a `since` start is one replay gap with one warning', withClosing(() => rig(4), async (r) => {
  publish(r.bus, Array<EventType>(10).fill('flow.completed'));
  const d = r.dispatcher();
  d.start(2);
  await d.stop();
  assert.equal(await r.held(), [7, 8, 9, 10]);
  const state = await r.outbox.state();
  assert.is(state.replay_gaps, 1);
  assert.equal(state.gaps.map((g) => [g.from_sequence, g.to_sequence]), [[3, 6]]);
  assert.equal(r.warnings.map((w) => (w.payload as { code: string }).code), ['replay_ring_overrun']);
}));

test('a queue overflow during a failing append records each missed range in sequence order', withClosing(() => rig(1024, { maxQueued: 1, batchMs: 1 }), async (r) => {
  // The first append waits until released, then fails (the outbox refused it).
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  beforeAppend(r.outbox, async (_, nth) => {
    if (nth > 1) return;
    await released;
    throw new Error('refused');
  });
  const d = r.dispatcher();
  d.start();
  const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));
  for (let i = 0; i < 3; i++) {
    publish(r.bus, ['flow.completed']);
    await settle();
  }
  // 1 is being appended, 2 waits in the queue, 3 overflowed it.
  release();
  await d.stop();
  assert.equal(await r.held(), [2]);
  const state = await r.outbox.state();
  assert.equal(state.gaps.map((g) => [g.from_sequence, g.to_sequence]), [[1, 1], [3, 3]]);
  assert.is(state.replay_gaps, 2);
}));

test('vouches for a sequence only once every event it takes up to there is in the outbox or a gap', withClosing(() => rig(1024, { maxQueued: 1, batchMs: 1 }), async (r) => {
  // The first append is held until released; the third event overflows the queue.
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  beforeAppend(r.outbox, async (_, nth) => {
    if (nth === 1) await released;
  });
  publish(r.bus, ['stats.sampled']);
  const d = r.dispatcher();
  d.start();
  assert.is(d.keptThrough(r.bus.lastSequence), 1);
  const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));
  for (const type of ['flow.completed', 'stats.sampled', 'flow.completed', 'flow.completed'] as EventType[]) {
    publish(r.bus, [type]);
    await settle();
  }
  // 2 is being appended, 4 waits in the queue, 5 overflowed it: nothing past 1 is vouched for.
  assert.is(d.keptThrough(r.bus.lastSequence), 1);
  publish(r.bus, ['stats.sampled']);
  assert.is(d.keptThrough(r.bus.lastSequence), 1);
  release();
  await waitFor(() => d.keptThrough(r.bus.lastSequence) === 6, 5000, 'the mark past the appends and the recorded gap');
  await d.stop();
  assert.equal(await r.held(), [2, 4]);
  assert.equal((await r.outbox.state()).gaps.map((g) => [g.from_sequence, g.to_sequence]), [[5, 5]]);
}));

test.run();
