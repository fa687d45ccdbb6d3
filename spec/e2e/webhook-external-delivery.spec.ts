import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { E2E_NODE_ID } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startRedisServer } from '../support/redis-server.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { startDeliver, type DeliverProcess } from '../support/weir-deliver.js';
import { runWeir } from '../support/weir-bin.js';
import { assertWellFormed, completedById, deliveredAll } from '../support/webhook-expect.js';
import { HOOK_TOKEN, startHookNode, stopAll, type SinkView } from '../support/webhook-node.js';

const QUEUE = `${E2E_NODE_ID}/hook`;

/** The sink as the node's state dir and Redis tell it with no node running. */
async function offlineSink(configPath: string): Promise<SinkView> {
  const offline = await runWeir(['connector', 'state', '--json', configPath]);
  assert.is(offline.code, 0, offline.stderr);
  return (JSON.parse(offline.stdout) as SinkView[]).find((s) => s.tag === 'hook')!;
}

test('with delivery "external" the node delivers nothing itself; two weir deliver processes do, and a kill -9 of one mid-batch loses nothing and counts nothing twice', async () => {
  const redis = await startRedisServer();
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, redisUrl: redis.url, hook: { url: receiver.url(), delivery: 'external', batch_size: 5 } });
  const workers: DeliverProcess[] = [];
  try {
    const ports = await hn.curlFlows(5);
    await hn.sinkWhen((s) => s.pending === 5, 'five pending in Redis');
    await sleep(1000);
    assert.is(receiver.requests().length, 0, 'the node does not deliver an external sink');

    // A slow receiver: each worker holds a batch in flight when one of them dies.
    receiver.respond(() => ({ status: 200, delayMs: 400 }));
    workers.push(await startDeliver(hn.configPath, QUEUE), await startDeliver(hn.configPath, QUEUE));
    ports.push(...(await hn.curlFlows(25)));
    await waitFor(() => receiver.inFlight() >= 2, 10_000, 'both workers with a request in flight');
    await workers[0]!.kill9();
    receiver.respond(() => ({ status: 200 }));

    // The dead worker's batch waits until its lock lapses (15 s) and two stalled-job
    // checks, 15 s apart, hand it on: up to 45 s, longer on a loaded machine.
    const done = await hn.sinkWhen((s) => s.pending === 0 && deliveredAll(receiver.acknowledged(), ports), 'every flow.completed delivered', { timeoutMs: 100_000 });
    const distinct = completedById(receiver.acknowledged()).size;
    assert.is(distinct, 30);
    assert.equal([done.total_delivered, done.dead_letters, done.replay_gaps], [30, 0, 0], 'one count per distinct event, redeliveries included');
    assertWellFormed(receiver.requests(), E2E_NODE_ID);
    assert.ok(receiver.requests().some((r) => r.body.startsWith('[')), 'a backlog goes out in batches');
  } finally {
    for (const w of workers) await w.stop();
    await stopAll(hn, receiver, origin, redis);
  }
});

test('the backlog of a node killed with kill -9 is delivered by a weir deliver process while the node is down', async () => {
  const redis = await startRedisServer();
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, redisUrl: redis.url, hook: { url: receiver.url(), delivery: 'external' } });
  let worker: DeliverProcess | null = null;
  try {
    const ports = await hn.curlFlows(12);
    await hn.sinkWhen((s) => s.pending === 12, 'twelve pending in Redis');
    await hn.node.kill9();
    worker = await startDeliver(hn.configPath, QUEUE, ['--node', E2E_NODE_ID]);
    await waitFor(() => deliveredAll(receiver.acknowledged(), ports), 15_000, 'the dead node\'s backlog delivered');
    const s = await waitFor(async () => {
      const view = await offlineSink(hn.configPath);
      return view.pending === 0 ? view : undefined;
    }, 10_000, 'nothing pending');
    assert.equal([s.total_delivered, s.total_failed, s.dead_letters], [12, 0, 0]);
    assert.is(completedById(receiver.acknowledged()).size, 12);
  } finally {
    await worker?.stop();
    await stopAll(hn, receiver, origin, redis);
  }
});

test('weir deliver refuses a config without redis or without a Webhook sink, with a usage error', async () => {
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, hook: null });
  try {
    const res = await runWeir(['deliver', '-c', hn.configPath]);
    assert.is(res.code, 2);
    assert.match(res.stderr, 'has no redis: weir deliver delivers Redis sink queues');
  } finally {
    await stopAll(hn, origin);
  }
});

test.run();
