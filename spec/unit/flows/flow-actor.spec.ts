import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowTraffic } from '../../../streams/contract.js';
import type { FlowChange } from '../../../streams/flow-change.js';
import { FlowActor, FlowCancelledError } from '../../../actors/flows/flow-actor.js';
import { AUTH, DIRECT_OK, PATH, ROUTE, T0, flowInit, meterOf, traffic } from './fixtures.js';

/** An actor whose changes the test reads, as its table would get them. */
function recorded(): { actor: FlowActor; changes: FlowChange[] } {
  const changes: FlowChange[] = [];
  return { actor: new FlowActor(flowInit(), AUTH, (c) => changes.push(c)), changes };
}

/** An actor whose changes go nowhere. */
const quiet = (): FlowActor => new FlowActor(flowInit(), AUTH, () => undefined);

test('started publishes the opening record with the auth', () => {
  const { actor, changes } = recorded();
  actor.started();
  assert.equal(
    changes.map(({ kind, record, auth }) => ({ kind, record, auth })),
    [{ kind: 'started', record: actor.record, auth: AUTH }],
  );
  assert.is(actor.id, 'f-1');
  assert.is(actor.record.state, 'opening');
});

test('routed publishes once; a second routing changes nothing', () => {
  const { actor, changes } = recorded();
  actor.routed(T0 + 1, ROUTE, PATH, '10.0.0.1');
  actor.routed(T0 + 2, ROUTE, PATH);
  assert.equal(changes.map((c) => [c.kind, c.record.revision, c.record.state]), [['routed', 2, 'active']]);
  assert.is(actor.record.target.resolved_ip, '10.0.0.1');
});

test('sample reads the attached meter and reports whether the counters moved', () => {
  const { actor, changes } = recorded();
  assert.is(actor.sample(T0 + 500), false, 'no meter attached yet');
  let counters: FlowTraffic = traffic(0, 0);
  let reads = 0;
  actor.attach(
    meterOf(() => (reads++, counters)),
    () => undefined,
  );
  actor.routed(T0 + 1, ROUTE, PATH);
  assert.is(actor.sample(T0 + 1000), false);
  counters = traffic(100, 200);
  assert.is(actor.sample(T0 + 2000), true);
  const readsWhenMoved = reads;
  assert.is(actor.sample(T0 + 3000), false);
  assert.is(reads, readsWhenMoved + 1, 'an unchanged total is not read out into a FlowTraffic');
  assert.equal(
    changes.map((c) => [c.kind, c.record.revision]),
    [
      ['routed', 2],
      ['traffic', 3],
    ],
  );
  assert.equal(actor.record.traffic, traffic(100, 200));
});

test('complete takes the final counters from the meter and publishes completed once', () => {
  const { actor, changes } = recorded();
  actor.attach(
    meterOf(() => traffic(7, 9)),
    () => undefined,
  );
  actor.routed(T0 + 1, ROUTE, PATH);
  actor.complete(T0 + 50, DIRECT_OK);
  assert.ok(actor.completed);
  assert.equal(changes.filter((c) => c.kind === 'completed').length, 1);
  const last = changes.at(-1)!;
  assert.is(last.kind, 'completed');
  assert.equal(last.record.traffic, traffic(7, 9));
  assert.equal(last.record.result, DIRECT_OK);
  assert.is(actor.sample(T0 + 60), false, 'a completed flow is not sampled');
});

test('complete without a meter keeps the last counters and records a blocked route', () => {
  const actor = quiet();
  const route = { ...ROUTE, target: 'block' };
  actor.complete(T0 + 2, { outcome: 'blocked', close_reason: null, failure: null }, route);
  assert.equal(actor.record.traffic, traffic(0, 0));
  assert.equal(actor.record.route, route);
});

test('requestClose calls the closer and keeps the first reason', () => {
  const actor = quiet();
  let closes = 0;
  actor.attach(
    meterOf(() => traffic(0, 0)),
    () => closes++,
  );
  actor.requestClose('manual');
  actor.requestClose('idle_timeout');
  assert.is(closes, 2);
  assert.is(actor.closeRequest, 'manual');
  assert.is(actor.closeReason, 'manual');
});

test('close_reason is idle_timeout for an idle close and null for a shutdown', () => {
  const idle = quiet();
  idle.requestClose('idle_timeout');
  assert.is(idle.closeReason, 'idle_timeout');
  const shutdown = quiet();
  shutdown.requestClose('shutdown');
  assert.is(shutdown.closeRequest, 'shutdown');
  assert.is(shutdown.closeReason, null);
  assert.is(quiet().closeReason, null);
});

test('requestClose on a completed flow does nothing', () => {
  const actor = quiet();
  let closes = 0;
  actor.attach(
    meterOf(() => traffic(0, 0)),
    () => closes++,
  );
  actor.complete(T0 + 1, DIRECT_OK);
  actor.requestClose('manual');
  assert.is(closes, 0);
  assert.is(actor.closeRequest, null);
});

/** A step of the opening the test settles by hand. */
function pendingStep<T>(): { step: Promise<T>; settle(value: T): void } {
  let settle!: (value: T) => void;
  const step = new Promise<T>((resolve) => (settle = resolve));
  return { step, settle };
}

test('opening yields what its step yields; a close after it reaches the relay attached next', async () => {
  const actor = quiet();
  const { step, settle } = pendingStep<string>();
  const opened = actor.opening(step);
  settle('socket');
  assert.is(await opened, 'socket');
  let closes = 0;
  actor.attach(
    meterOf(() => traffic(0, 0)),
    () => closes++,
  );
  actor.requestClose('manual');
  assert.is(closes, 1);
});

test('a close while a step of the opening is pending rejects at once; what the step yields later is discarded', async () => {
  const actor = quiet();
  const { step, settle } = pendingStep<string>();
  const discarded: string[] = [];
  const opened = actor.opening(step, (late) => discarded.push(late));
  actor.requestClose('shutdown');
  const err = await opened.then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(err, FlowCancelledError);
  assert.equal(discarded, []);
  settle('late socket');
  await step;
  assert.equal(discarded, ['late socket']);
});

test('a step that starts after the close was asked for is cancelled before it is awaited', async () => {
  const actor = quiet();
  actor.requestClose('manual');
  const discarded: number[] = [];
  const err = await actor.opening(Promise.resolve(7), (late) => discarded.push(late)).then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(err, FlowCancelledError);
  await Promise.resolve();
  assert.equal(discarded, [7]);
});

test('the client leaving while a step of the opening is pending cancels it at once, with no close_reason', async () => {
  const actor = quiet();
  const left = pendingStep<void>();
  actor.endOpeningOn(left.step);
  const { step } = pendingStep<string>();
  const opened = actor.opening(step);
  left.settle();
  const err = await opened.then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(err, FlowCancelledError);
  assert.is(actor.closeRequest, 'client_left');
  assert.is(actor.closeReason, null);
});

test('the client leaving once the flow is established is left to the relay', async () => {
  const actor = quiet();
  const left = pendingStep<void>();
  actor.endOpeningOn(left.step);
  await actor.opening(Promise.resolve('socket'));
  actor.routed(T0 + 1, ROUTE, PATH);
  let closes = 0;
  actor.attach(
    meterOf(() => traffic(0, 0)),
    () => closes++,
  );
  left.settle();
  await left.step;
  await Promise.resolve();
  assert.is(closes, 0);
  assert.is(actor.closeRequest, null);
});

test.run();
