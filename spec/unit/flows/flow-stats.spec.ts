import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowRecord, Outcome } from '../../../streams/contract.js';
import type { FlowChange } from '../../../streams/flow-change.js';
import { FlowStats, zeroUdpStats } from '../../../actors/flows/flow-stats.js';
import { AUTH, activeRecord, openingRecord, traffic } from './fixtures.js';

function withTraffic(record: FlowRecord, up: number, down: number): FlowRecord {
  return { ...record, traffic: traffic(up, down) };
}

function completed(id: string, outcome: Outcome, up = 0, down = 0): FlowChange {
  const record = withTraffic(activeRecord(id), up, down);
  return {
    kind: 'completed',
    record: { ...record, state: 'completed', result: { outcome, close_reason: null, failure: null } },
    auth: AUTH,
  };
}

test('a fresh counter set is all zero', () => {
  assert.equal(new FlowStats().snapshot([]), {
    active_sessions: 0,
    total_started: 0,
    completed_sessions: 0,
    failed_sessions: 0,
    blocked_sessions: 0,
    direct_sessions: 0,
    chained_sessions: 0,
    bytes_up: 0,
    bytes_down: 0,
    udp_upstream: zeroUdpStats(),
  });
});

test('counts started flows and completed flows per outcome', () => {
  const stats = new FlowStats();
  for (const id of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) stats.observe({ kind: 'started', record: openingRecord(id), auth: AUTH });
  stats.observe(completed('a', 'direct_relayed'));
  stats.observe(completed('b', 'direct_relayed'));
  stats.observe(completed('c', 'chained_relayed'));
  stats.observe(completed('d', 'failed'));
  stats.observe(completed('e', 'blocked'));
  stats.observe(completed('f', 'cancelled'));
  const active = [activeRecord('g')];
  assert.equal(stats.snapshot(active), {
    active_sessions: 1,
    total_started: 7,
    completed_sessions: 6,
    failed_sessions: 1,
    blocked_sessions: 1,
    direct_sessions: 2,
    chained_sessions: 1,
    bytes_up: 0,
    bytes_down: 0,
    udp_upstream: zeroUdpStats(),
  });
});

test('byte totals add the completed flows to the live counters of the active ones', () => {
  const stats = new FlowStats();
  stats.observe(completed('a', 'direct_relayed', 100, 1000));
  stats.observe(completed('b', 'failed', 5, 0));
  const snap = stats.snapshot([withTraffic(activeRecord('c'), 20, 300), withTraffic(activeRecord('d'), 1, 2)]);
  assert.is(snap.bytes_up, 126);
  assert.is(snap.bytes_down, 1302);
  assert.is(snap.active_sessions, 2);
});

test('routed and traffic changes move no counter', () => {
  const stats = new FlowStats();
  stats.observe({ kind: 'routed', record: activeRecord('a'), auth: AUTH });
  stats.observe({ kind: 'traffic', record: withTraffic(activeRecord('a'), 9, 9), auth: AUTH });
  const snap = stats.snapshot([]);
  assert.is(snap.total_started, 0);
  assert.is(snap.completed_sessions, 0);
  assert.is(snap.bytes_up, 0);
  assert.is(snap.bytes_down, 0);
});

test('a snapshot holds a copy of the udp counters', () => {
  const stats = new FlowStats();
  stats.udp.packets_sent = 3;
  const snap = stats.snapshot([]);
  assert.is(snap.udp_upstream.packets_sent, 3);
  stats.udp.packets_sent = 4;
  assert.is(snap.udp_upstream.packets_sent, 3);
});

test.run();
