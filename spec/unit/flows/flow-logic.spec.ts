import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowRecord } from '../../../streams/contract.js';
import { ZERO_TRAFFIC, flowTransition, initialFlowRecord } from '../../../actors/flows/flow-logic.js';
import { DIRECT_OK, PATH, ROUTE, T0, activeRecord, flowInit, openingRecord, traffic } from './fixtures.js';

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

test('a new flow is opening at revision 1 with a pending route, an empty path and zero counters', () => {
  const r = openingRecord();
  assert.equal(r, {
    flow_id: 'f-1',
    revision: 1,
    state: 'opening',
    network: 'tcp',
    inbound: { tag: 'mixed-in', protocol: 'socks5' },
    target: { host: 'example.com', port: 443 },
    route: { mode: 'rule', action: 'pending', target: null, matched_rule: null, selection_chain: [] },
    path: { outbound: null, remote: null, relay_chain: [] },
    traffic: { ...ZERO_TRAFFIC },
    throughput: { upload_bps: 0, download_bps: 0, sampled_at_unix_ms: T0 },
    timing: { started_at_unix_ms: T0, last_activity_at_unix_ms: T0, ended_at_unix_ms: null, duration_ms: null },
  });
});

test('omits source when it is not given, even as an explicit undefined', () => {
  assert.not.ok('source' in openingRecord());
  assert.not.ok('source' in initialFlowRecord(flowInit({ source: undefined })));
  assert.not.ok('result' in openingRecord());
});

test('keeps the source when it is given', () => {
  const source = { ip: '127.0.0.1', port: 50000 };
  assert.equal(initialFlowRecord(flowInit({ source })).source, { ip: '127.0.0.1', port: 50000 });
});

test('a udp flow counts packets from zero, a tcp flow reports them as null', () => {
  const udp = initialFlowRecord(flowInit({ network: 'udp' }));
  assert.is(udp.traffic.packets_up, 0);
  assert.is(udp.traffic.packets_down, 0);
  assert.is(openingRecord().traffic.packets_up, null);
  assert.is(openingRecord().traffic.packets_down, null);
});

test('routing moves an opening flow to active, bumps the revision and takes the route and path', () => {
  const before = openingRecord();
  const after = flowTransition(before, { type: 'routed', at: T0 + 100, route: ROUTE, path: PATH });
  assert.equal(after, { ...before, revision: 2, state: 'active', route: ROUTE, path: PATH });
  assert.not.ok('resolved_ip' in after.target);
  assert.not.ok('result' in after);
});

test('routing records resolved_ip only when the dial gave one', () => {
  const after = flowTransition(openingRecord(), {
    type: 'routed',
    at: T0 + 100,
    route: ROUTE,
    path: PATH,
    resolved_ip: '93.184.216.34',
  });
  assert.equal(after.target, { host: 'example.com', port: 443, resolved_ip: '93.184.216.34' });
});

test('routing a flow that is already active returns the same record', () => {
  const active = activeRecord();
  assert.is(flowTransition(active, { type: 'routed', at: T0 + 200, route: ROUTE, path: PATH }), active);
});

test('the same traffic returns the same record', () => {
  const active = activeRecord();
  assert.is(flowTransition(active, { type: 'traffic', at: T0 + 1000, traffic: { ...ZERO_TRAFFIC } }), active);
});

test('a change in any single counter is a change', () => {
  const active = activeRecord();
  for (const key of Object.keys(ZERO_TRAFFIC) as (keyof typeof ZERO_TRAFFIC)[]) {
    const next = flowTransition(active, { type: 'traffic', at: T0 + 1000, traffic: { ...ZERO_TRAFFIC, [key]: 1 } });
    assert.is(next.revision, active.revision + 1, key);
  }
});

test('new traffic bumps the revision and computes throughput from the deltas over the elapsed time', () => {
  const active = activeRecord();
  const first = flowTransition(active, { type: 'traffic', at: T0 + 1000, traffic: traffic(1000, 4000) });
  assert.equal(first, {
    ...active,
    revision: 3,
    traffic: traffic(1000, 4000),
    throughput: { upload_bps: 8000, download_bps: 32000, sampled_at_unix_ms: T0 + 1000 },
    timing: { ...active.timing, last_activity_at_unix_ms: T0 + 1000 },
  });
  const second = flowTransition(first, { type: 'traffic', at: T0 + 3000, traffic: traffic(1500, 4000) });
  assert.is(second.revision, 4);
  assert.equal(second.throughput, { upload_bps: 2000, download_bps: 0, sampled_at_unix_ms: T0 + 3000 });
  assert.is(second.timing.last_activity_at_unix_ms, T0 + 3000);
});

test('throughput is 0 when no time elapsed since the last sample', () => {
  const active = activeRecord();
  const next = flowTransition(active, { type: 'traffic', at: T0, traffic: traffic(10, 10) });
  assert.equal(next.throughput, { upload_bps: 0, download_bps: 0, sampled_at_unix_ms: T0 });
});

test('completion sets state, result, end time and duration with one revision step', () => {
  const active = flowTransition(activeRecord(), { type: 'traffic', at: T0 + 1000, traffic: traffic(5, 7) });
  const done = flowTransition(active, { type: 'completed', at: T0 + 5000, traffic: traffic(5, 7), result: DIRECT_OK });
  assert.equal(done, {
    ...active,
    revision: active.revision + 1,
    state: 'completed',
    timing: {
      started_at_unix_ms: T0,
      last_activity_at_unix_ms: T0 + 1000,
      ended_at_unix_ms: T0 + 5000,
      duration_ms: 5000,
    },
    result: DIRECT_OK,
  });
});

test('completion with moved counters takes the final traffic and throughput in the same revision', () => {
  const active = activeRecord();
  const done = flowTransition(active, { type: 'completed', at: T0 + 2000, traffic: traffic(250, 500), result: DIRECT_OK });
  assert.is(done.revision, active.revision + 1);
  assert.equal(done.traffic, traffic(250, 500));
  assert.equal(done.throughput, { upload_bps: 1000, download_bps: 2000, sampled_at_unix_ms: T0 + 2000 });
  assert.equal(done.timing, {
    started_at_unix_ms: T0,
    last_activity_at_unix_ms: T0 + 2000,
    ended_at_unix_ms: T0 + 2000,
    duration_ms: 2000,
  });
});

test('a blocked completion of an opening flow carries the route decision and keeps the empty path', () => {
  const blocked = { outcome: 'blocked', close_reason: null, failure: null } as const;
  const route = { ...ROUTE, target: 'block', selection_chain: ['block'] };
  const done = flowTransition(openingRecord(), {
    type: 'completed',
    at: T0 + 3,
    traffic: { ...ZERO_TRAFFIC },
    route,
    result: blocked,
  });
  assert.is(done.state, 'completed');
  assert.is(done.revision, 2);
  assert.equal(done.route, route);
  assert.equal(done.path, { outbound: null, remote: null, relay_chain: [] });
  assert.equal(done.result, blocked);
  assert.is(done.timing.duration_ms, 3);
});

test('completion without a route keeps the current route', () => {
  const done = flowTransition(activeRecord(), { type: 'completed', at: T0 + 9, traffic: { ...ZERO_TRAFFIC }, result: DIRECT_OK });
  assert.equal(done.route, ROUTE);
});

test('duration is never negative when the clock steps back', () => {
  const done = flowTransition(openingRecord(), { type: 'completed', at: T0 - 50, traffic: { ...ZERO_TRAFFIC }, result: DIRECT_OK });
  assert.is(done.timing.duration_ms, 0);
  assert.is(done.timing.ended_at_unix_ms, T0 - 50);
});

test('anything after completion returns the same record', () => {
  const done = flowTransition(activeRecord(), { type: 'completed', at: T0 + 9, traffic: { ...ZERO_TRAFFIC }, result: DIRECT_OK });
  assert.is(flowTransition(done, { type: 'routed', at: T0 + 10, route: ROUTE, path: PATH }), done);
  assert.is(flowTransition(done, { type: 'traffic', at: T0 + 10, traffic: traffic(1, 1) }), done);
  const cancelled = { outcome: 'cancelled', close_reason: 'manual', failure: null } as const;
  assert.is(flowTransition(done, { type: 'completed', at: T0 + 10, traffic: traffic(1, 1), result: cancelled }), done);
});

test('never mutates the record it is given', () => {
  const frozen: FlowRecord = deepFreeze(openingRecord());
  const routed = flowTransition(frozen, { type: 'routed', at: T0 + 1, route: ROUTE, path: PATH, resolved_ip: '10.0.0.1' });
  const moved = flowTransition(deepFreeze(routed), { type: 'traffic', at: T0 + 2, traffic: traffic(1, 2) });
  flowTransition(deepFreeze(moved), { type: 'completed', at: T0 + 3, traffic: traffic(3, 4), result: DIRECT_OK });
  assert.is(frozen.revision, 1);
  assert.is(frozen.state, 'opening');
  assert.not.ok('resolved_ip' in frozen.target);
});

test.run();
