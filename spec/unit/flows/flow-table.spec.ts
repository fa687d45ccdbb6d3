import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowTraffic } from '../../../streams/contract.js';
import type { FlowChange } from '../../../streams/flow-change.js';
import type { FlowActor } from '../../../actors/flows/flow-actor.js';
import { FlowTable } from '../../../actors/flows/flow-table.js';
import { openTcpFlow, type FlowEnv } from '../../../actors/flows/flow-opener.js';
import { OutboundSet } from '../../../actors/outbounds/outbound-set.js';
import { Router } from '../../../actors/router/router.js';
import { rejectionOf } from '../../support/rejection.js';
import { FAR_MS, settlesBeforeFar } from '../../support/far-bound.js';
import { AUTH, DIRECT_OK, PATH, ROUTE, T0, flowInit, meterOf, traffic } from './fixtures.js';

const IDLE_MS = 5000;

function table(): { table: FlowTable; changes: FlowChange[] } {
  const t = new FlowTable({ idPrefix: 'ep', idleTimeoutMs: IDLE_MS });
  const changes: FlowChange[] = [];
  t.changes$.subscribe((c) => changes.push(c));
  return { table: t, changes };
}

function open(t: FlowTable): FlowActor {
  const { flow_id: _id, ...init } = flowInit();
  return t.open(init, AUTH);
}

/** An active flow whose counters the test moves and whose closer counts calls. */
function activeFlow(t: FlowTable): { actor: FlowActor; set: (c: FlowTraffic) => void; closes: () => number } {
  const actor = open(t);
  let counters = traffic(0, 0);
  let closes = 0;
  actor.attach(
    meterOf(() => counters),
    () => closes++,
  );
  actor.routed(T0 + 1, ROUTE, PATH);
  return { actor, set: (c) => (counters = c), closes: () => closes };
}

test('open gives prefixed ids and emits flow started on changes$', () => {
  const { table: t, changes } = table();
  const a = open(t);
  const b = open(t);
  assert.is(a.id, 'ep-1');
  assert.is(b.id, 'ep-2');
  assert.equal(
    changes.map((c) => [c.kind, c.record.flow_id, c.record.state]),
    [
      ['started', 'ep-1', 'opening'],
      ['started', 'ep-2', 'opening'],
    ],
  );
  assert.equal(changes[0]!.auth, AUTH);
  assert.is(t.size, 2);
  assert.is(t.get('ep-2'), b);
  assert.is(t.get('ep-9'), undefined);
});

test('changes$ merges every actor and outlives a completed flow', () => {
  const { table: t, changes } = table();
  const a = open(t);
  const b = open(t);
  a.complete(T0 + 5, DIRECT_OK);
  b.routed(T0 + 6, ROUTE, PATH);
  assert.equal(
    changes.map((c) => [c.kind, c.record.flow_id]),
    [
      ['started', 'ep-1'],
      ['started', 'ep-2'],
      ['completed', 'ep-1'],
      ['routed', 'ep-2'],
    ],
  );
});

test('poll samples the counters of every flow through its meter', () => {
  const { table: t, changes } = table();
  const one = activeFlow(t);
  const two = activeFlow(t);
  one.set(traffic(10, 20));
  t.poll(T0 + 1000);
  assert.equal(
    changes.filter((c) => c.kind === 'traffic').map((c) => [c.record.flow_id, c.record.revision, c.record.traffic.bytes_down]),
    [['ep-1', 3, 20]],
  );
  assert.equal(two.actor.record.revision, 2);
});

test('poll closes an active flow whose counters have not moved for the idle timeout', () => {
  const { table: t } = table();
  const flow = activeFlow(t);
  t.poll(T0 + IDLE_MS - 1);
  assert.is(flow.closes(), 0);
  t.poll(T0 + IDLE_MS);
  assert.is(flow.closes(), 1);
  assert.is(flow.actor.closeRequest, 'idle_timeout');
});

test('poll measures idleness from the last counter movement', () => {
  const { table: t } = table();
  const flow = activeFlow(t);
  flow.set(traffic(1, 1));
  t.poll(T0 + 3000);
  t.poll(T0 + 3000 + IDLE_MS - 1);
  assert.is(flow.closes(), 0);
  t.poll(T0 + 3000 + IDLE_MS);
  assert.is(flow.closes(), 1);
});

test('poll does not idle-close a flow that is still opening', () => {
  const { table: t } = table();
  const actor = open(t);
  let closes = 0;
  actor.attach(
    meterOf(() => traffic(0, 0)),
    () => closes++,
  );
  t.poll(T0 + IDLE_MS * 10);
  assert.is(closes, 0);
});

test('openedRecords gives each active flow its opening number, in opening order', () => {
  const { table: t } = table();
  const a = activeFlow(t);
  const b = open(t);
  const c = open(t);
  assert.equal([...t.openedRecords()], [
    [1, a.actor.record],
    [2, b.record],
    [3, c.record],
  ]);
  a.actor.complete(T0 + 5, DIRECT_OK);
  assert.equal([...t.openedRecords()], [
    [2, b.record],
    [3, c.record],
  ]);
});

test('a completed flow leaves the table and activeRecords', () => {
  const { table: t } = table();
  const a = activeFlow(t);
  const b = open(t);
  assert.equal(t.activeRecords(), [a.actor.record, b.record]);
  a.actor.complete(T0 + 10, DIRECT_OK);
  assert.equal(t.activeRecords(), [b.record]);
  assert.is(t.size, 1);
  assert.is(t.get(a.actor.id), undefined);
});

test('close asks a known flow to end and reports an unknown one', () => {
  const { table: t } = table();
  const flow = activeFlow(t);
  assert.is(t.close(flow.actor.id, 'manual'), true);
  assert.is(flow.closes(), 1);
  assert.is(flow.actor.closeRequest, 'manual');
  assert.is(t.close('ep-404', 'manual'), false);
});

test('closeAll resolves once every flow has completed', async () => {
  const { table: t } = table();
  for (let i = 0; i < 3; i++) {
    const actor = open(t);
    actor.attach(
      meterOf(() => traffic(0, 0)),
      () => setTimeout(() => actor.complete(T0 + 10, DIRECT_OK), 5 * (i + 1)),
    );
  }
  // Resolved by the completions: its own FAR_MS timeout would lose the race.
  await settlesBeforeFar(t.closeAll('shutdown', FAR_MS), 'closeAll');
  assert.is(t.size, 0);
});

test('closeAll resolves at once on an empty table and after the timeout when a flow hangs', async () => {
  const { table: t } = table();
  await settlesBeforeFar(t.closeAll('shutdown', FAR_MS), 'closeAll of an empty table');
  const hung = open(t);
  const started = Date.now();
  await t.closeAll('shutdown', 30);
  assert.ok(Date.now() - started >= 25, 'not before the timeout');
  assert.is(t.size, 1);
  assert.is(hung.closeRequest, 'shutdown');
});

test('after closeAll the table is closed and the opener refuses a connection without a flow', async () => {
  const { table: t, changes } = table();
  assert.is(t.closed, false);
  await t.closeAll('shutdown', FAR_MS);
  assert.is(t.closed, true);
  const refusals: string[] = [];
  const env = { table: t } as unknown as FlowEnv;
  const req = { inbound: { tag: 'socks-in', protocol: 'socks' }, auth: AUTH, target: { host: '127.0.0.1', port: 80 } };
  const opened = await openTcpFlow(env, req, {
    blocked: () => refusals.push('blocked'),
    failed: (f) => refusals.push(f.message),
  });
  assert.is(opened, null);
  assert.equal(refusals, ['the node is stopping']);
  assert.equal(changes, [], 'no flow.started for a connection the stopping node refused');
  assert.is(t.size, 0);
});

test('a flow whose route cannot be carried out still completes, failed with ROUTE_FAILED, and the error goes on', async () => {
  const { table: t, changes } = table();
  // The route names a tag the running node has no outbound for (nothing else can make resolve throw).
  const env = {
    table: t,
    router: new Router({ mode: 'rule', rules: [], final: 'ghost' }),
    outbounds: new OutboundSet(new Map(), new Map()),
    now: () => T0,
  } as unknown as FlowEnv;
  const req = { inbound: { tag: 'socks-in', protocol: 'socks' }, auth: AUTH, target: { host: '127.0.0.1', port: 80 } };
  const told: string[] = [];
  const err = await rejectionOf(openTcpFlow(env, req, { blocked: () => told.push('blocked'), failed: (f) => told.push(f.code) }));
  assert.match(String(err), /unknown outbound tag "ghost"/);
  assert.equal(told, ['ROUTE_FAILED']);
  const last = changes.at(-1)!.record;
  assert.equal([last.state, last.result], [
    'completed',
    { outcome: 'failed', close_reason: 'upstream_error', failure: { stage: 'route', code: 'ROUTE_FAILED', message: 'the node could not route the flow', remote: { host: '127.0.0.1', port: 80 } } },
  ]);
  assert.is(t.size, 0);
});

test.run();
