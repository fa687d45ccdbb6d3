import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ofType, readJsonl, waitForEvents, type JsonEnvelope } from '../support/jsonl.js';
import { E2E_NODE_ID } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { waitFor } from '../support/wait-for.js';
import { runWeir } from '../support/weir-bin.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { assertWellFormed, completedById, sourcePortOf } from '../support/webhook-expect.js';
import { HOOK_TOKEN, startHookNode, type HookNode, stopAll } from '../support/webhook-node.js';

function delivered(receiver: WebhookReceiver, port: number, timeoutMs = 10_000): Promise<unknown> {
  return waitFor(
    () => [...completedById(receiver.acknowledged()).values()].some((e) => sourcePortOf(e) === port),
    timeoutMs,
    `the flow.completed of the curl from port ${port}`,
  );
}

async function sinkTags(hn: HookNode): Promise<string[]> {
  return ((await hn.api('/sinks')).json.sinks as { tag: string }[]).map((s) => s.tag);
}

test('config.apply registers a Webhook sink idempotently, refuses bad bodies whole, survives a restart, removes it with its backlog', async () => {
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, hook: null });
  const logs: string[] = [];
  const overlay = path.join(path.dirname(hn.configPath), 'applied-config.json');
  const billing = {
    type: 'webhook',
    tag: 'billing',
    url: receiver.url(),
    token: HOOK_TOKEN,
    events: ['flow.completed'],
    backoff_base_ms: 100,
    backoff_max_ms: 1000,
  };
  const register = { upsert_sinks: [billing] };
  try {
    const first = await hn.api('/config/apply', { method: 'POST', body: register });
    assert.is(first.status, 200, first.text);
    assert.equal([first.json.changed, first.json.route_changed], [true, false]);
    assert.equal(first.json.sinks.added.map((s: { tag: string; token: unknown }) => [s.tag, s.token]), [['billing', '[redacted]']]);
    assert.equal([first.json.sinks.replaced, first.json.sinks.removed, first.json.sinks.removed_pending], [[], [], {}]);
    await waitForEvents(hn.events, (es) => ofType(es, 'config.changed').length === 1, 5000, 'config.changed');
    assert.equal(await sinkTags(hn), ['archive', 'billing']);
    await delivered(receiver, await hn.curlFlow());

    const again = await hn.api('/config/apply', { method: 'POST', body: register });
    assert.is(again.status, 200, again.text);
    assert.equal([again.json.changed, again.json.sinks.added, again.json.sinks.replaced, again.json.sinks.removed], [false, [], [], []]);
    const port = await hn.curlFlow();
    await delivered(receiver, port);
    // The bus is ordered: a config.changed of the second apply would precede this flow.completed.
    await waitForEvents(hn.events, (es) => ofType(es, 'flow.completed').some((e) => sourcePortOf(e) === port), 5000, 'the flow.completed');
    assert.is(ofType(readJsonl(hn.events), 'config.changed').length, 1, 'no second config.changed');

    const overlayBefore = fs.readFileSync(overlay, 'utf8');
    for (const bad of [{ ...billing, type: 'kafka' }, { ...billing, url: 'not a url' }]) {
      const refused = await hn.api('/config/apply', { method: 'POST', body: { upsert_sinks: [bad] } });
      assert.is(refused.status, 422, refused.text);
      assert.is(refused.json.code, 'CONFIG_INVALID');
      assert.match(refused.json.detail, /upsert_sinks\[0\]/);
    }
    assert.equal(await sinkTags(hn), ['archive', 'billing'], 'nothing changed');
    assert.is(fs.readFileSync(overlay, 'utf8'), overlayBefore, 'nothing persisted');

    assert.is(await hn.node.stop(), 0);
    logs.push(hn.node.stdout(), hn.node.stderr());
    const offline = await runWeir(['connector', 'state', '--json', hn.configPath]);
    assert.is(offline.code, 0, offline.stderr);
    logs.push(offline.stdout, offline.stderr);
    const known = (JSON.parse(offline.stdout) as { tag: string; state_known: boolean }[]).map((s) => [s.tag, s.state_known]);
    assert.equal(known, [['archive', true], ['billing', true]], 'the applied sink is shown offline too');
    await hn.restart();
    assert.equal(await sinkTags(hn), ['archive', 'billing'], 'the applied sink outlives a restart');
    await delivered(receiver, await hn.curlFlow());

    await receiver.stop();
    const backlog = await hn.curlFlows(2);
    await waitFor(async () => (await hn.sink('billing'))?.pending === 2, 5000, 'a backlog of two');
    const removed = await hn.api('/config/apply', { method: 'POST', body: { remove_sinks: ['billing'] } });
    assert.is(removed.status, 200, removed.text);
    assert.equal([removed.json.changed, removed.json.sinks.removed, removed.json.sinks.removed_pending], [true, ['billing'], { billing: 2 }]);
    assert.equal(await sinkTags(hn), ['archive']);
    await waitForEvents(hn.events, (es) => ofType(es, 'config.changed').length === 2, 5000, 'config.changed of the removal');

    // The backlog stayed in the outbox: registering the same tag again delivers it.
    await receiver.start();
    assert.is((await hn.api('/config/apply', { method: 'POST', body: register })).status, 200);
    for (const p of backlog) await delivered(receiver, p);
    await waitFor(async () => (await hn.sink('billing'))?.pending === 0, 5000, 'nothing pending');

    assertWellFormed(receiver.requests(), E2E_NODE_ID);
    logs.push(hn.node.stdout(), hn.node.stderr(), fs.readFileSync(hn.events, 'utf8'));
    for (const text of [...hn.bodies, ...logs]) assert.not.ok(text.includes(HOOK_TOKEN), 'the token is never shown');
  } finally {
    await stopAll(hn, receiver, origin);
  }
});

/**
 * Registers the JSONL sink `late` of flow.completed under a file where its directory
 * should be, so it cannot start until `unblock` removes that file.
 */
async function applyBlockedSink(hn: HookNode): Promise<{ file: string; unblock(): void }> {
  const blocker = path.join(path.dirname(hn.configPath), 'late');
  fs.writeFileSync(blocker, 'not a directory');
  const file = path.join(blocker, 'events.jsonl');
  const res = await hn.api('/config/apply', { method: 'POST', body: { upsert_sinks: [{ type: 'jsonl', tag: 'late', path: file, events: ['flow.completed'] }] } });
  assert.is(res.status, 200, res.text);
  await waitForEvents(hn.events, (es) => startFailures(es).length > 0, 5000, 'the sink_start_failed warning');
  return { file, unblock: () => fs.rmSync(blocker) };
}

function startFailures(events: readonly JsonEnvelope[]): JsonEnvelope[] {
  return ofType(events, 'engine.warning').filter((e) => (e.payload as { code: string }).code === 'sink_start_failed');
}

function completedFrom(file: string, port: number): boolean {
  return fs.existsSync(file) && ofType(readJsonl(file), 'flow.completed').some((e) => sourcePortOf(e) === port);
}

/** A node with the blocked sink `late` applied, for `body`; stopped after it, whatever it did. */
function withBlockedSink(body: (hn: HookNode, late: { file: string; unblock(): void }) => Promise<void>): () => Promise<void> {
  return async () => {
    const origin = await startOrigin();
    const hn = await startHookNode({ origin, hook: null });
    try {
      await body(hn, await applyBlockedSink(hn));
    } finally {
      await stopAll(hn, origin);
    }
  };
}

test('a sink that cannot start keeps its tag, says why, and takes what was published meanwhile once it can', withBlockedSink(async (hn, { file, unblock }) => {
  const late = ((await hn.api('/sinks')).json.sinks as { tag: string; last_error: { message: string } | null }[]).find((s) => s.tag === 'late');
  assert.match(late?.last_error?.message ?? '', /^sink could not start: /);

  const port = await hn.curlFlow();
  unblock();
  await waitFor(() => completedFrom(file, port), 15_000, 'the flow.completed published before the sink could start, in its file');
}));

test('a sink still retrying when the node stops tries once more and takes the run’s events', withBlockedSink(async (hn, { file, unblock }) => {
  const port = await hn.curlFlow();
  unblock();
  // Before its next retry (5 s after the failure): only the stop's own attempt can write the file.
  assert.not.ok(fs.existsSync(file), 'no retry has started the sink yet');
  assert.is(await hn.node.stop(), 0);
  assert.ok(completedFrom(file, port), 'the flow.completed is in the sink’s file');
}));

test('a sink that still cannot start when the node stops records the range it missed at its next start', withBlockedSink(async (hn, { unblock }) => {
  await hn.curlFlow();
  assert.is(await hn.node.stop(), 0);
  const run = readJsonl(hn.events);
  const missedFile = path.join(path.dirname(hn.events), 'missed-by-unstarted-sinks.json');
  // From the warning of its failed start (published after the sequence it begins after) to engine.stopped.
  assert.equal(
    (JSON.parse(fs.readFileSync(missedFile, 'utf8')) as Record<string, { from_sequence: number; to_sequence: number }[]>)['late']?.map((r) => [r.from_sequence, r.to_sequence]),
    [[startFailures(run)[0]!.sequence, ofType(run, 'engine.stopped')[0]!.sequence]],
  );

  unblock();
  await hn.restart();
  // Recorded by the sink's start (its last_error goes on from the run before, as a Webhook sink's does).
  await hn.sinkWhen((s) => s.replay_gaps === 1, 'the sink running, the range recorded', { tag: 'late' });
  assert.not.ok(fs.existsSync(missedFile), 'the range is forgotten once recorded');
}));

test.run();
