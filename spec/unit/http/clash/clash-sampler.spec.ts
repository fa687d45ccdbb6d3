import { Subject } from 'rxjs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ControlOps } from '../../../../actors/control/control-ops.js';
import { ClashSampler, type ClashSample } from '../../../../http/clash/clash-sampler.js';
import type { StatsSnapshot } from '../../../../streams/contract.js';
import { PublishedEvent } from '../../../../streams/published-event.js';
import { activeRecord } from '../../flows/fixtures.js';

/** What the sampler reads of ControlOps, with stats.sampled ticks the spec publishes and a count of table reads. */
function fakeOps() {
  const ticks = new Subject<PublishedEvent>();
  let sequence = 0;
  const counts = { tableReads: 0 };
  let current = { bytes_up: 0, bytes_down: 0 };
  const ops = {
    subscribe: () => ({ gap: null, events$: ticks.asObservable() }),
    stats: () => current as StatsSnapshot,
    activeFlows: () => {
      counts.tableReads++;
      return [activeRecord('f-1')];
    },
    routing: () => ({ outbounds: [], route: { rules: [] } }),
  } as unknown as ControlOps;
  const tick = (bytes_up: number, bytes_down: number): void => {
    current = { bytes_up, bytes_down };
    const envelope = { schema_id: 'node.event.v1' as const, event_id: `e-${++sequence}`, event_type: 'stats.sampled' as const, occurred_at_unix_ms: 0, source_id: null, sequence, principal_key: null, labels: {}, payload: current };
    ticks.next(PublishedEvent.of(envelope));
  };
  return { ops, tick, counts };
}

test('every dashboard gets the same sample of a tick: the snapshot is built once however many listen', () => {
  const { ops, tick, counts } = fakeOps();
  const sampler = new ClashSampler(ops);
  const seen: ClashSample[][] = [[], [], []];
  const subs = seen.map((list) => sampler.samples$.subscribe((s) => list.push(s)));
  tick(10, 20);
  const texts = seen.map((list) => list[0]!.connectionsJson());
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

test.run();
