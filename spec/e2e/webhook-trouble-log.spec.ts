import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { logLines } from '../support/log-lines.js';
import { E2E_NODE_ID } from '../support/node-config.js';
import { startOrigin, type Origin } from '../support/origin.js';
import { startRedisServer } from '../support/redis-server.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { startDeliver } from '../support/weir-deliver.js';
import { deliveredAll } from '../support/webhook-expect.js';
import { HOOK_TOKEN, startHookNode, stopAll, type HookNode } from '../support/webhook-node.js';

/** Failed attempts the receiver answers 500 before it answers 200 again: several retries, one episode. */
const FAILED_ATTEMPTS = 6;

/** The delivery-trouble lines of a log: a warn when deliveries start failing, an info when they succeed again. */
function troubleLines(stdout: string, sink: string): { level: number; msg: string; failed_attempts?: number }[] {
  const prefix = `sink ${sink}: deliveries `;
  return logLines(stdout).filter((l) => String(l['msg']).startsWith(prefix)) as { level: number; msg: string; failed_attempts?: number }[];
}

/** Flows while the receiver answers 500, then 200 until every flow.completed is taken. */
async function oneEpisode(hn: HookNode, receiver: WebhookReceiver): Promise<void> {
  receiver.respond(() => ({ status: 500 }));
  const ports = await hn.curlFlows(3);
  await waitFor(() => receiver.requests().length >= FAILED_ATTEMPTS, 20_000, `${FAILED_ATTEMPTS} failed attempts`);
  receiver.respond(() => ({ status: 200 }));
  await waitFor(() => deliveredAll(receiver.acknowledged(), ports), 20_000, 'every flow.completed delivered');
}

function assertOneEpisode(stdout: string, sink: string, failedAttempts: number): void {
  const lines = troubleLines(stdout, sink);
  assert.is(lines.length, 2, stdout);
  const [failing, back] = lines;
  assert.is(failing!.level, 40, 'warn');
  assert.is(failing!.msg, `sink ${sink}: deliveries failing (receiver answered HTTP 500)`);
  assert.is(back!.level, 30, 'info');
  assert.match(back!.msg, new RegExp(`^sink ${sink}: deliveries succeed again after ${failedAttempts} failed attempts over \\d+(\\.\\d)? s$`));
  assert.is(back!.failed_attempts, failedAttempts);
}

async function withParts(body: (origin: Origin, receiver: WebhookReceiver) => Promise<void>): Promise<void> {
  const origin = await startOrigin();
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  try {
    await body(origin, receiver);
  } finally {
    await receiver.close();
    await origin.close();
  }
}

/** The failed requests the receiver answered: each is one attempt. */
function failedRequests(receiver: WebhookReceiver): number {
  return receiver.requests().filter((r) => r.status === 500).length;
}

/** One episode of 500s through a node on the embedded store, or on `redisUrl`: its log tells it once. */
async function episodeLogged(redisUrl?: string): Promise<void> {
  await withParts(async (origin, receiver) => {
    const hn = await startHookNode({ origin, ...(redisUrl && { redisUrl }), hook: { url: receiver.url() } });
    try {
      await oneEpisode(hn, receiver);
      assert.is(await hn.node.stop(), 0);
      assertOneEpisode(hn.node.stdout(), 'hook', failedRequests(receiver));
    } finally {
      await hn.node.stop();
    }
  });
}

test('a receiver answering 500 for a while, then 200, is one warn and one info (embedded outbox)', () => episodeLogged());

test('the same on Redis: one warn and one info from the node\'s BullMQ delivery', async () => {
  const redis = await startRedisServer();
  try {
    await episodeLogged(redis.url);
  } finally {
    await redis.close();
  }
});

test('weir deliver logs the same episode once, naming the queue', async () => {
  const redis = await startRedisServer();
  try {
    await withParts(async (origin, receiver) => {
      const hn = await startHookNode({ origin, redisUrl: redis.url, hook: { url: receiver.url(), delivery: 'external' } });
      const queue = `${E2E_NODE_ID}/hook`;
      const worker = await startDeliver(hn.configPath, queue);
      try {
        await oneEpisode(hn, receiver);
        assert.is(await worker.stop(), 0);
        assertOneEpisode(worker.stdout(), queue, failedRequests(receiver));
        assert.is(troubleLines(hn.node.stdout(), 'hook').length, 0, 'the node delivers nothing of an external sink');
      } finally {
        await worker.stop();
        await stopAll(hn);
      }
    });
  } finally {
    await redis.close();
  }
});

test.run();
