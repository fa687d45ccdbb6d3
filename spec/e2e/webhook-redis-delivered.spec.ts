import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sinkKeys } from '../../actors/outbox/bullmq-keys.js';
import { E2E_NODE_ID } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startRedisReplyCut } from '../support/redis-reply-cut.js';
import { startRedisServer } from '../support/redis-server.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { completedById, deliveredAll } from '../support/webhook-expect.js';
import { HOOK_TOKEN, startHookNode, stopAll, type HookNode, type SinkView } from '../support/webhook-node.js';
import { sinkQueue } from '../support/sink-queue.js';

// total_delivered counts the distinct events a receiver acknowledged, whatever Redis
// did meanwhile: a fleet audit saw 48 for 50 after Redis outages.

/** What BullMQ sends with a job's completion (its return value, as JSON): the move of an acknowledged event. */
const COMPLETION = '"delivered"';
/** A field of every job's data: in an append's command, and in no other the node sends. */
const JOB_DATA = 'replayed_at_unix_ms';

/** The flow.completed the receiver acknowledged more than once (a redelivery under the same event_id). */
function redelivered(acknowledged: readonly Record<string, unknown>[]): number {
  const completed = acknowledged.filter((e) => e['event_type'] === 'flow.completed');
  return completed.length - completedById(completed).size;
}

/** The sink once nothing is pending and it counts `distinct` (or more); else as it stands after 10 s, for the assertion to show. */
async function settled(hn: HookNode, distinct: number): Promise<SinkView> {
  const ready = (v: SinkView): boolean => v.pending === 0 && v.total_delivered >= distinct;
  return hn.sinkWhen(ready, `total_delivered ${distinct}`).catch(async () => (await hn.sink())!);
}

/** A node whose Redis is reached through a link that can cut a command's reply, with a receiver and an origin. */
async function throughCutLink() {
  const redis = await startRedisServer();
  const link = await startRedisReplyCut(redis.port);
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, redisUrl: link.url, hook: { url: receiver.url() } });
  return { redis, link, receiver, origin, hn };
}

/** The receiver acknowledged `expected` distinct events, and the sink, settled, counts each once. */
async function assertCountedOnce(hn: HookNode, receiver: WebhookReceiver, expected: number, why: string): Promise<void> {
  const distinct = completedById(receiver.acknowledged()).size;
  assert.is(distinct, expected);
  const s = await settled(hn, distinct);
  assert.is(s.total_delivered, distinct, why);
}

test('a delivery whose completion Redis ran but never answered counts once, as the receiver got it', async () => {
  const { redis, link, receiver, origin, hn } = await throughCutLink();
  try {
    // Two completions run in Redis and lose their reply with the connection; the node
    // reconnects and sends them again, to jobs Redis has removed by then.
    link.cutAfter(COMPLETION, 2);
    // One flow at a time, each delivered before the next: each is its own job with its
    // own completion, so the first two completions are the ones cut. A completion that
    // also handed the worker its next job loses that job's reply too: the job waits,
    // active, until its lock lapses (15 s) and two stalled-job checks, 15 s apart, hand
    // it on (15-45 s; longer on a loaded machine, where the bound has room).
    const ports: number[] = [];
    for (let i = 1; i <= 6; i++) {
      ports.push(await hn.curlFlow());
      await waitFor(() => deliveredAll(receiver.acknowledged(), ports), 120_000, `flow ${i} delivered`);
    }
    await waitFor(() => link.met() === 2, 10_000, 'two completions cut');
    await assertCountedOnce(hn, receiver, 6, 'one count per distinct event the receiver acknowledged');
  } finally {
    await stopAll(hn, receiver, origin, link, redis);
  }
});

test('a delivery counted before a kill -9 caught its completion unsent is completed after the restart, not sent again', async () => {
  const { redis, link, receiver, origin, hn } = await throughCutLink();
  const queue = sinkQueue(redis.url, sinkKeys(E2E_NODE_ID, 'hook'));
  try {
    const ports = await hn.curlFlows(2);
    await hn.sinkWhen((v) => v.pending === 0 && v.total_delivered === 2, 'the first two delivered');
    // The link dies before the third one's completion reaches Redis; the node is killed meanwhile.
    link.stall(COMPLETION);
    ports.push(await hn.curlFlow());
    await waitFor(() => deliveredAll(receiver.acknowledged(), ports) && link.met() === 1, 10_000, 'the third delivered, its completion held');
    await hn.node.kill9();
    await hn.restart();
    ports.push(...(await hn.curlFlows(2)));
    // Its lock lapses (15 s), then two stalled-job checks (15 s apart) hand it on, and its count's mark completes it.
    const unfinished = async (): Promise<number> => Object.values(await queue.getJobCounts('active', 'wait', 'delayed', 'failed')).reduce((a, b) => a + b, 0);
    await waitFor(async () => deliveredAll(receiver.acknowledged(), ports) && (await unfinished()) === 0, 60_000, 'the third completed after the restart');
    assert.is(redelivered(receiver.acknowledged()), 0, 'counted delivered, it is not sent again');
    await assertCountedOnce(hn, receiver, 5, 'counted once');
  } finally {
    await queue.close();
    await stopAll(hn, receiver, origin, link, redis);
  }
});

test('an append Redis ran just before it died, kept in the outage journal too, is delivered and counted once', async () => {
  const { redis, link, receiver, origin, hn } = await throughCutLink();
  try {
    const ports = await hn.curlFlows(1);
    await hn.sinkWhen((v) => v.pending === 0 && v.total_delivered === 1, 'the first delivered');
    // The next append runs in Redis, then Redis dies before its reply is out: the node
    // keeps the event in its outage journal too. The receiver refuses meanwhile, so the
    // copy Redis holds is not delivered before Redis is gone.
    receiver.respond(() => ({ status: 503 }));
    link.cutAfter(JOB_DATA, 1, 300);
    ports.push(await hn.curlFlow());
    await waitFor(() => link.met() === 1, 5000, 'the append sent', 5);
    // Time for Redis to run it and write its AOF; the link holds the reply for 300 ms.
    await sleep(150);
    await redis.kill9();
    await hn.sinkWhen((v) => /outage journal/.test(v.last_error?.message ?? ''), 'the event in the outage journal', { timeoutMs: 15_000 });
    receiver.respond(() => ({ status: 200 }));
    await sleep(2000);
    assert.not.ok(deliveredAll(receiver.acknowledged(), ports), 'nothing delivers from the journal');
    await redis.restart();
    await waitFor(() => deliveredAll(receiver.acknowledged(), ports), 30_000, 'delivered once Redis is back');
    await assertCountedOnce(hn, receiver, 2, 'the job Redis kept and the journal\'s are one job');
    assert.is(redelivered(receiver.acknowledged()), 0, 'the move added the job Redis kept under its own id: delivered once');
  } finally {
    await stopAll(hn, receiver, origin, link, redis);
  }
});

test.run();
