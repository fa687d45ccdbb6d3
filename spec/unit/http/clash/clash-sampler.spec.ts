import { Subject } from 'rxjs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ControlOps } from '../../../../actors/control/control-ops.js';
import { ClashSampler, type ClashSample } from '../../../../http/clash/clash-sampler.js';
import { PublishedEvent } from '../../../../streams/published-event.js';
import type { WeirConfig } from '../../../../actors/config/schema.js';
import { clashConnection } from '../../../../http/clash/connection-view.js';
import type { FlowRecord, StatsSnapshot } from '../../../../streams/contract.js';
import { RECORDS_PER_SLICE } from '../../../../streams/text-slices.js';
import { activeRecord, countedRecords } from '../../flows/fixtures.js';
import { turnsDuring } from '../../streams/turns.js';

/**
 * What the sampler reads of ControlOps, with stats.sampled ticks the spec publishes and a
 * count of table reads; `table.records` and `table.rules` are what it reads now.
 */
function fakeOps(table: { records: FlowRecord[]; rules: WeirConfig['route']['rules'] } = { records: [activeRecord('f-1')], rules: [] }) {
  const ticks = new Subject<PublishedEvent>();
  let sequence = 0;
  const counts = { tableReads: 0 };
  let current = { bytes_up: 0, bytes_down: 0 };
  const ops = {
    subscribe: () => ({ gap: null, events$: ticks.asObservable() }),
    stats: () => current as StatsSnapshot,
    activeFlows: () => {
      counts.tableReads++;
      return table.records;
    },
    routing: () => ({ outbounds: [], route: { rules: table.rules } }),
  } as unknown as ControlOps;
  const tick = (bytes_up: number, bytes_down: number): void => {
    current = { bytes_up, bytes_down };
    const envelope = { schema_id: 'node.event.v1' as const, event_id: `e-${++sequence}`, event_type: 'stats.sampled' as const, occurred_at_unix_ms: 0, source_id: null, sequence, principal_key: null, labels: {}, payload: current };
    ticks.next(PublishedEvent.of(envelope));
  };
  return { ops, tick, counts };
}

test('every dashboard gets the same sample of a tick: the snapshot is built once however many listen', async () => {
  const { ops, tick, counts } = fakeOps();
  const sampler = new ClashSampler(ops);
  const seen: ClashSample[][] = [[], [], []];
  const subs = seen.map((list) => sampler.samples$.subscribe((s) => list.push(s)));
  tick(10, 20);
  const texts = await Promise.all(seen.map((list) => list[0]!.connectionsJson()));
  assert.is(new Set(texts).size, 1);
  assert.is(counts.tableReads, 1);
  assert.equal(JSON.parse(texts[0]!).connections.map((c: { id: string }) => c.id), ['f-1']);
  for (const sub of subs) sub.unsubscribe();
});

test('totals never go down, and each tick\'s rate is the rise of the totals since the tick before', () => {
  const { ops, tick } = fakeOps();
  const sampler = new ClashSampler(ops);
  const samples: ClashSample[] = [];
  const sub = sampler.samples$.subscribe((s) => samples.push(s));
  tick(100, 1000);
  tick(90, 1500); // a cut flow's final count below its last live reading
  tick(150, 1400);
  assert.equal(
    samples.map((s) => [s.uploadTotal, s.downloadTotal, s.up, s.down]),
    [
      [100, 1000, 0, 0],
      [100, 1500, 0, 500],
      [150, 1500, 50, 0],
    ],
  );
  // A snapshot taken now never shows less than was sent.
  assert.equal([sampler.now().uploadTotal, sampler.now().downloadTotal], [150, 1500]);
  sub.unsubscribe();
});

test('nothing is built while no dashboard listens', () => {
  const { ops, tick, counts } = fakeOps();
  const sampler = new ClashSampler(ops);
  const sub = sampler.samples$.subscribe();
  sub.unsubscribe();
  tick(1, 1);
  assert.is(counts.tableReads, 0);
});

test('a flow unchanged since the last tick is not converted again, until a reload brings new rules', async () => {
  const { records, serializations } = countedRecords(3);
  const table = { records, rules: [{ domain_suffix: ['example.com'], outbound: 'proxy' }] as WeirConfig['route']['rules'] };
  const { ops, tick } = fakeOps(table);
  const sampler = new ClashSampler(ops);
  let latest: ClashSample | undefined;
  const sub = sampler.samples$.subscribe((s) => (latest = s));
  // A tick's snapshot, written out before the spec changes the table.
  const ticked = async (): Promise<{ downloadTotal: number; uploadTotal: number; connections: { upload: number }[]; memory: number }> => {
    tick(1, 2);
    return JSON.parse(await latest!.connectionsJson());
  };
  await ticked();
  await ticked();
  assert.is(serializations(), 3, 'each flow converted once');
  // A revision is a new object (its flow_id a plain field, not counted): converted anew.
  const revised = { ...records[0]!, revision: 9, traffic: { ...records[0]!.traffic, bytes_up: 77 } };
  table.records = [revised, records[1]!, records[2]!];
  assert.equal((await ticked()).connections.map((c) => c.upload), [77, 0, 0]);
  const before = serializations();
  table.rules = [{ domain: ['example.com'], outbound: 'proxy' }];
  const fourth = await ticked();
  assert.is(serializations() - before, 2, 'the unchanged flows converted again under the new rules');
  assert.equal(Object.keys(fourth), ['downloadTotal', 'uploadTotal', 'connections', 'memory']);
  assert.equal(fourth.connections, table.records.map((r) => JSON.parse(JSON.stringify(clashConnection(r, table.rules)))));
  assert.equal([fourth.downloadTotal, fourth.uploadTotal], [2, 1]);
  sub.unsubscribe();
});

test('a large table is written a slice per turn of the event loop, and the same on the next tick in one', async () => {
  const { ops, tick } = fakeOps({ records: Array.from({ length: 3 * RECORDS_PER_SLICE }, (_, i) => activeRecord(`f-${i}`)), rules: [] });
  const sampler = new ClashSampler(ops);
  let latest: ClashSample | undefined;
  const sub = sampler.samples$.subscribe((s) => (latest = s));
  tick(1, 2);
  assert.is(await turnsDuring(() => latest!.connectionsJson()), 2, 'three slices, two turns');
  tick(1, 2);
  assert.is(await turnsDuring(() => latest!.connectionsJson()), 0, 'kept texts: one slice');
  assert.is((JSON.parse(await latest!.connectionsJson()) as { connections: unknown[] }).connections.length, 3 * RECORDS_PER_SLICE);
  sub.unsubscribe();
});

test.run();
