import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ofType, readJsonl, warningsOf } from '../support/jsonl.js';
import { E2E_NODE_ID } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startRedisServer } from '../support/redis-server.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { completedById, deliveredAll, sourcePortOf } from '../support/webhook-expect.js';
import { HOOK_TOKEN, startHookNode, stopAll, type HookNode, type HookNodeOptions } from '../support/webhook-node.js';

// Nodes of a fleet share one Redis, and every key of a node's outbox carries its
// node.id: two nodes given the same id (a copied config, the host name default on one
// host) shared their queues and counters without a word.

/** A second node with the first one's node.id; when it starts (it must not), it is stopped and the error is that it started. */
async function startSecond(opts: HookNodeOptions): Promise<Error> {
  const second = await startHookNode(opts).catch((err: unknown) => err as Error);
  if (second instanceof Error) return second;
  await second.node.stop();
  return new Error(`a second node with node.id ${E2E_NODE_ID} started on the same Redis`);
}

test('a second node started with the node.id of a running node on the same Redis is refused; the first delivers on, and takes its id back at once after a kill -9', async () => {
  const redis = await startRedisServer();
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  const origin = await startOrigin();
  const first = await startHookNode({ origin, redisUrl: redis.url, hook: { url: receiver.url() } });
  try {
    const ports = await first.curlFlows(3);
    const refused = await startSecond({ origin, redisUrl: redis.url, hook: { url: receiver.url() } });
    assert.match(refused.message, 'weir exited (code 1');
    assert.match(refused.message, `node.id "${E2E_NODE_ID}" is in use on this Redis by another running node (host `);
    assert.match(refused.message, `pid ${first.node.pid}`);

    ports.push(...(await first.curlFlows(3)));
    await waitFor(() => deliveredAll(receiver.acknowledged(), ports), 10_000, 'the first six delivered');
    await first.node.kill9();
    // The claim the killed run left is its own node's: no wait for it to lapse.
    await first.restart();
    ports.push(...(await first.curlFlows(2)));
    await waitFor(() => deliveredAll(receiver.acknowledged(), ports), 15_000, 'every flow.completed delivered');
    assert.equal([...completedById(receiver.acknowledged()).values()].map(sourcePortOf).sort(), [...ports].sort());
    assert.is(ofType(readJsonl(first.events), 'engine.started').length, 2, 'only the first node published into its own sinks');
  } finally {
    await stopAll(first, receiver, origin, redis);
  }
});

test('a Webhook sink config.apply adds to a node whose node.id another running node holds on Redis does not start: it says why, and delivers once the id is free', async () => {
  const redis = await startRedisServer();
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  const origin = await startOrigin();
  const first = await startHookNode({ origin, redisUrl: redis.url, hook: { url: receiver.url() } });
  // Without a Webhook sink the second node opens nothing on Redis, and starts.
  let second: HookNode | null = null;
  try {
    second = await startHookNode({ origin, redisUrl: redis.url, hook: null });
    const hook = { type: 'webhook', tag: 'hook', token: HOOK_TOKEN, url: receiver.url(), events: ['flow.completed'], backoff_base_ms: 100, backoff_max_ms: 1000 };
    const applied = await second.api('/config/apply', { method: 'POST', body: { upsert_sinks: [hook] } });
    assert.is(applied.status, 200, applied.text);
    const ports = await second.curlFlows(2);
    const refused = await second.sinkWhen((s) => s.last_error !== null, 'the sink says why it does not run');
    assert.match(refused.last_error!.message, `sink could not start: node.id "${E2E_NODE_ID}" is in use on this Redis by another running node`);
    const [warning] = await warningsOf(second.events, 'sink_start_failed');
    assert.match(String(warning!.payload['message']), 'is in use on this Redis');
    assert.not.ok(deliveredAll(receiver.acknowledged(), ports.slice(0, 1)), 'nothing of the second node delivered through the first one’s queue');

    // The first node stops: its claim goes with it, and the sink starts with what was published meanwhile.
    assert.is(await first.node.stop(), 0);
    await waitFor(() => deliveredAll(receiver.acknowledged(), ports), 15_000, 'the second node’s flow.completed delivered');
    const after = await second.sinkWhen((s) => s.pending === 0, 'nothing pending');
    assert.is(after.replay_gaps, 0);
  } finally {
    if (second) await second.node.stop();
    await stopAll(first, receiver, origin, redis);
  }
});

test.run();
