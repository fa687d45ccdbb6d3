import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowChange } from '../../../streams/flow-change.js';
import { FlowActor } from '../../../actors/flows/flow-actor.js';
import { flowTransition } from '../../../actors/flows/flow-logic.js';
import { AUTH, DIRECT_OK, PATH, ROUTE, T0, activeRecord, flowInit } from './fixtures.js';

const SOURCE = { ip: '127.0.0.1', port: 40000 };
const CURL = { process_id: 42, process_name: 'curl', process_path: '/usr/bin/curl' };

function actorWithSource(): { actor: FlowActor; changes: FlowChange[] } {
  const changes: FlowChange[] = [];
  const actor = new FlowActor(flowInit({ source: SOURCE, target: { host: '192.0.2.1', port: 443 } }), AUTH, (c) => changes.push(c));
  actor.started();
  return { actor, changes };
}

test('a detail joins the source and the target in a new revision', () => {
  const active = { ...activeRecord(), source: SOURCE };
  const next = flowTransition(active, { type: 'detail', detail: { process: CURL, sniffed_host: 'example.test' } });
  assert.is(next.revision, active.revision + 1);
  assert.equal(next.source, { ...SOURCE, ...CURL });
  assert.equal(next.target, { host: 'example.com', port: 443, sniffed_host: 'example.test' });
});

test('a detail that is not new, or has nowhere to go, changes nothing', () => {
  const known = flowTransition({ ...activeRecord(), source: SOURCE }, { type: 'detail', detail: { process: CURL, sniffed_host: 'a.test' } });
  assert.is(flowTransition(known, { type: 'detail', detail: { process: CURL, sniffed_host: 'a.test' } }), known);
  const sourceless = activeRecord();
  assert.is(flowTransition(sourceless, { type: 'detail', detail: { process: CURL } }), sourceless, 'no source to add a process to');
  assert.not.ok('source' in flowTransition(sourceless, { type: 'detail', detail: { sniffed_host: 'b.test' } }));
});

test('what is learned while opening comes with flow.routed, without an event of its own', () => {
  const { actor, changes } = actorWithSource();
  actor.learn({ process: CURL });
  actor.learn({ sniffed_host: 'example.test' });
  assert.is(changes.length, 1, 'only flow.started so far');
  actor.routed(T0 + 5, ROUTE, PATH, '192.0.2.1');
  const routed = changes[1]!;
  assert.is(routed.kind, 'routed');
  assert.is(routed.record.revision, 2);
  assert.equal(routed.record.source, { ...SOURCE, ...CURL });
  assert.equal(routed.record.target, { host: '192.0.2.1', port: 443, sniffed_host: 'example.test', resolved_ip: '192.0.2.1' });
});

test('what is learned while opening comes with flow.completed of a flow never routed', () => {
  const { actor, changes } = actorWithSource();
  actor.learn({ sniffed_host: 'blocked.test' });
  actor.complete(T0 + 5, { outcome: 'blocked', close_reason: null, failure: null }, ROUTE);
  assert.equal(changes[1]!.record.target, { host: '192.0.2.1', port: 443, sniffed_host: 'blocked.test' });
});

test('what is learned on an active flow is a sampled change; after the end it is dropped', () => {
  const { actor, changes } = actorWithSource();
  actor.routed(T0 + 5, ROUTE, PATH);
  actor.learn({ process: CURL });
  assert.equal(changes.map((c) => [c.kind, c.record.revision]), [['started', 1], ['routed', 2], ['traffic', 3]]);
  assert.equal(actor.record.source, { ...SOURCE, ...CURL });
  actor.complete(T0 + 9, DIRECT_OK);
  actor.learn({ sniffed_host: 'late.test' });
  assert.is(changes.length, 4);
  assert.is(actor.record.target.sniffed_host, undefined);
});

test.run();
