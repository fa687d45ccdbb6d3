import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ofType, waitForEvents } from '../support/jsonl.js';
import { E2E_NODE_ID } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { assertWellFormed, completedById, sourcePortOf } from '../support/webhook-expect.js';
import { HOOK_TOKEN, startHookNode, type ApiReply, type HookNode, stopAll } from '../support/webhook-node.js';

/** The sink `hook` as an upsert: startHookNode's fields, with an answer wait long enough to hold a replacement. */
function hookSink(receiver: WebhookReceiver, batchSize: number): Record<string, unknown> {
  return {
    type: 'webhook',
    tag: 'hook',
    url: receiver.url(),
    token: HOOK_TOKEN,
    events: ['flow.completed'],
    concurrency: 2,
    timeout_ms: 60_000,
    backoff_base_ms: 100,
    backoff_max_ms: 1000,
    batch_size: batchSize,
  };
}

/**
 * A node whose receiver holds the first delivery unanswered: stopping the sink then
 * waits for it, until `release` drops the receiver's connections.
 */
async function heldNode(): Promise<{ hn: HookNode; receiver: WebhookReceiver; release(): Promise<void>; close(): Promise<void> }> {
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  let requests = 0;
  receiver.respond(() => (requests++ === 0 ? { status: 200, delayMs: 120_000 } : { status: 200 }));
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, hook: hookSink(receiver, 1) });
  await hn.curlFlow();
  await waitFor(() => receiver.inFlight() === 1, 10_000, 'the first delivery held by the receiver');
  return {
    hn,
    receiver,
    async release() {
      await receiver.stop();
      await receiver.start();
    },
    async close() {
      await stopAll(hn, receiver, origin);
    },
  };
}

/**
 * Sends a config.apply of the sink and resolves once the node has persisted it, i.e.
 * the apply is under way; `reply` is its answer (wrapped, or awaiting this would wait for it).
 */
async function applying(hn: HookNode, sink: Record<string, unknown>): Promise<{ reply: Promise<ApiReply> }> {
  const reply = hn.api('/config/apply', { method: 'POST', body: { upsert_sinks: [sink] } });
  const overlay = path.join(path.dirname(hn.configPath), 'applied-config.json');
  const persisted = (): unknown => {
    try {
      return fs.readFileSync(overlay, 'utf8').includes(`"batch_size": ${String(sink['batch_size'])}`);
    } catch {
      return false;
    }
  };
  await waitFor(persisted, 10_000, `the apply of batch_size ${String(sink['batch_size'])} under way`);
  return { reply };
}

function delivered(receiver: WebhookReceiver, ports: readonly number[]): Promise<unknown> {
  return waitFor(
    () => {
      const got = new Set([...completedById(receiver.acknowledged()).values()].map(sourcePortOf));
      return ports.every((p) => got.has(p));
    },
    15_000,
    `the flow.completed of ${ports.length} curls`,
  );
}

test('a replaced sink gets every event published while its old instance finished a delivery, with no gap', async () => {
  const { hn, receiver, release, close } = await heldNode();
  try {
    const { reply } = await applying(hn, hookSink(receiver, 2));
    // Published while the old sink waits for its held delivery and before the new one starts.
    const meanwhile = await hn.curlFlows(5);
    await waitForEvents(hn.events, (es) => meanwhile.every((p) => ofType(es, 'flow.completed').some((e) => sourcePortOf(e) === p)), 10_000, 'their flow.completed');
    await release();
    const applied = await reply;
    assert.is(applied.status, 200, applied.text);
    assert.equal(applied.json.sinks.replaced.map((s: { tag: string }) => s.tag), ['hook']);

    await delivered(receiver, meanwhile);
    const state = await hn.sinkWhen((s) => s.pending === 0, 'nothing pending');
    assert.is(state.replay_gaps, 0);
    assertWellFormed(receiver.requests(), E2E_NODE_ID);
  } finally {
    await close();
  }
});

test('two overlapping config.apply of one sink leave one sink: each event is POSTed once', async () => {
  const { hn, receiver, release, close } = await heldNode();
  try {
    const first = await applying(hn, hookSink(receiver, 2));
    const second = await applying(hn, hookSink(receiver, 3));
    await release();
    for (const reply of [await first.reply, await second.reply]) {
      assert.is(reply.status, 200, reply.text);
      assert.equal(reply.json.sinks.replaced.map((s: { tag: string }) => s.tag), ['hook']);
    }
    assert.is(((await hn.api('/sinks')).json.sinks as { tag: string }[]).filter((s) => s.tag === 'hook').length, 1);

    const ports = await hn.curlFlows(4);
    await delivered(receiver, ports);
    await hn.sinkWhen((s) => s.pending === 0, 'nothing pending');
    const posts = new Map<number, number>();
    for (const r of receiver.requests()) {
      const body = JSON.parse(r.body) as object | object[];
      for (const e of Array.isArray(body) ? body : [body]) posts.set(sourcePortOf(e), (posts.get(sourcePortOf(e)) ?? 0) + 1);
    }
    assert.equal(ports.map((p) => posts.get(p)), ports.map(() => 1), 'one POST per flow.completed');
  } finally {
    await close();
  }
});

test('a replaced JSONL sink counts on from its predecessor: what it delivered is not taken back', async () => {
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, hook: null });
  try {
    const archive = (JSON.parse(fs.readFileSync(hn.configPath, 'utf8')) as { event_sinks: Record<string, unknown>[] }).event_sinks[0]!;
    await hn.curlFlows(3);
    // At once, before a tick has saved the connector state with these lines.
    const before = await hn.sinkWhen((s) => s.total_delivered >= 10, 'the flows archived', { tag: 'archive' });
    const reply = await hn.api('/config/apply', { method: 'POST', body: { upsert_sinks: [{ ...archive, fsync_interval_ms: 50 }] } });
    assert.is(reply.status, 200, reply.text);
    assert.equal(reply.json.sinks.replaced.map((s: { tag: string }) => s.tag), ['archive']);
    const after = (await hn.sink('archive'))!;
    assert.ok(after.total_delivered >= before.total_delivered, `${after.total_delivered} ≥ ${before.total_delivered}`);
  } finally {
    await stopAll(hn, origin);
  }
});

test.run();
