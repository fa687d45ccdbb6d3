import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FleetMember } from '../../actors/fleet/read-fleet.js';
import { infoField } from './fleet-redis.js';
import { fleetStates, formatReport, num, reportRows, type FleetMeasurements } from './fleet-report.js';

const member = (node_id: string, state: 'up' | 'stale'): FleetMember => ({ node_id, state, last_seen_unix_ms: 0, presence: null });

const measured: FleetMeasurements = {
  nodes: 6,
  workers: 2,
  redis: 'a Redis Cluster of 3 masters and 3 replicas',
  concurrency: 2,
  loadMs: 20_000,
  idleMs: 20_000,
  idleBytesPerNode: 10_240,
  idleCommandsPerNode: 1.25,
  idleCommandsPerNodeWithWorkers: 3.5,
  pending: 1000,
  bytesPerPending: 2500,
  keyBytesPerPending: 2100,
  drain: { events: 1000, perSecond: 800, p50Ms: 900, p99Ms: 1200 },
  load: { completed: 30_000, failed: 0, perSecond: 1500 },
  delivered: { events: 30_000, perSecond: 1234.4, p50Ms: 12, p99Ms: 480 },
  commandsPerEvent: 17.25,
  redisCpuMsPerEvent: 0.0456,
  workerCpuMsPerEvent: 1.5,
  killed: ['fleet-5', 'fleet-6'],
  fleetBefore: ['fleet-1', 'fleet-2', 'fleet-3', 'fleet-4', 'fleet-5', 'fleet-6'].map((id) => member(id, 'up')),
  fleetAtKill: ['fleet-1', 'fleet-2', 'fleet-3', 'fleet-4', 'fleet-5', 'fleet-6'].map((id) => member(id, 'up')),
  fleetAfter: [...['fleet-1', 'fleet-2', 'fleet-3', 'fleet-4'].map((id) => member(id, 'up')), member('fleet-5', 'stale'), member('fleet-6', 'stale')],
  staleAfterMs: 12_345,
  killedArchived: 400,
  killedDelivered: 400,
};

test('num rounds with thousands separators and shows a missing figure as -', () => {
  assert.is(num(1234.4), '1,234');
  assert.is(num(1.256, 2), '1.26');
  assert.is(num(null), '-');
  assert.is(num(Number.NaN), '-');
});

test('fleetStates counts up and stale nodes and names the stale ones', () => {
  assert.is(fleetStates(measured.fleetAfter), '4 up, 2 stale (fleet-5, fleet-6)');
  assert.is(fleetStates(measured.fleetBefore), '6 up, 0 stale');
});

test('the report has one row per figure with its value in its unit', () => {
  const values = Object.fromEntries(reportRows(measured).map((r) => [r.figure, r.value]));
  assert.equal(values, {
    'nodes / weir deliver workers': '6 / 2',
    'events/s end to end': '1,234',
    'delivery latency p50': '12 ms',
    'delivery latency p99': '480 ms',
    'Redis commands per event': '17.3',
    'Redis CPU per event': '0.046 ms',
    'weir deliver CPU per event': '1.500 ms',
    'backlog drain': '800 ev/s',
    'Redis memory per pending event': '2,500 B',
    '  keys alone': '2,100 B',
    'Redis memory per idle node': '10.0 KiB',
    'Redis commands/s per idle node': '1.25',
    '  the same with the workers': '3.50',
    'weir fleet before kill -9': '6 up, 0 stale',
    'weir fleet at kill -9': '6 up, 0 stale',
    'weir fleet after the TTL': '4 up, 2 stale (fleet-5, fleet-6)',
    "killed nodes' events delivered": '400 / 400',
  });
  assert.is(reportRows(measured)[0]!.note, 'a Redis Cluster of 3 masters and 3 replicas (AOF always), one receiver, all on loopback');
  const after = reportRows({ ...measured, staleAfterMs: null }).find((r) => r.figure === 'weir fleet after the TTL')!;
  assert.is(after.note, 'the killed nodes did not go stale within the wait');
});

test('formatReport aligns the columns under a header, values to the right', () => {
  const text = formatReport([
    { figure: 'a', value: '1', note: 'one' },
    { figure: 'longer', value: '1,000', note: '' },
  ]);
  assert.is(text, ['FIGURE  VALUE  NOTE', 'a           1  one', 'longer  1,000'].join('\n'));
});

test('infoField reads one numeric field of an INFO answer and refuses a missing one', () => {
  const info = '# Memory\r\nused_memory:1048576\r\nused_memory_human:1.00M\r\n';
  assert.is(infoField(info, 'used_memory'), 1_048_576);
  assert.throws(() => infoField(info, 'total_commands_processed'), /INFO has no total_commands_processed/);
});

test.run();
