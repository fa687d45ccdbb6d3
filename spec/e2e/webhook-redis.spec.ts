import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WAIT_MS } from '../support/far-bound.js';
import { ofType, readJsonl, warningsOf } from '../support/jsonl.js';
import { E2E_NODE_ID } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { assertWellFormed, completedById, deliveredAll, sourcePortOf } from '../support/webhook-expect.js';
import { HOOK_TOKEN, startHookNode, stopAll } from '../support/webhook-node.js';

test('Redis killed mid-stream and restarted: the outage\'s events wait in the outage journal, and every curl’s flow.completed is delivered and counted once', async () => {
  const redis = await startRedisServer();
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  // Slow enough, one event a request, that a backlog sits in Redis when it dies.
  receiver.respond(() => ({ status: 200, delayMs: 200 }));
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, redisUrl: redis.url, hook: { url: receiver.url(), concurrency: 1, batch_size: 1 } });
  try {
    const ports = await hn.curlFlows(8);
    const queued = await hn.sinkWhen((s) => s.pending + s.total_delivered === 8, 'the first eight in the Redis outbox');
    assert.is(queued.outbox_storage.store, 'redis');
    assert.ok(queued.pending > 0, 'a backlog in Redis');
    // One delivery is in flight. Redis holds commands unanswered while the delivery ends,
    // so its acknowledgement is still in flight when Redis dies: such a command waits for
    // Redis to return, and must not hold up the deliveries of the outage.
    await waitFor(() => receiver.inFlight() > 0, 5000, 'a delivery in flight');
    await redis.pause(5000);
    await waitFor(() => receiver.inFlight() === 0, 5000, 'the delivery answered');
    await sleep(300);
    await redis.kill9();

    // Proxying goes on; these events are kept in the outage journal, and nothing delivers them from there.
    const whileDown = await hn.curlFlows(8);
    ports.push(...whileDown);
    const during = await hn.sinkWhen((s) => /outage journal/.test(s.last_error?.message ?? '') && s.pending + s.total_delivered >= 16, 'the outage\'s events in the journal', { timeoutMs: 15_000 });
    assert.is(during.replay_gaps, 0);
    assert.not.ok(whileDown.some((p) => deliveredAll(receiver.acknowledged(), [p])), 'nothing delivered while Redis is down');

    await redis.restart();
    // A job in flight when Redis died waits for its lock to lapse and the stalled-job checks (15 s each).
    const after = await hn.sinkWhen((s) => s.pending === 0 && completedById(receiver.acknowledged()).size === 16, 'every flow.completed delivered and nothing pending once Redis is back', { timeoutMs: 60_000 });
    const completed = completedById(receiver.acknowledged());
    assert.equal([...completed.values()].map(sourcePortOf).sort(), [...ports].sort(), 'one flow.completed per curl');
    assert.equal([after.total_delivered, after.replay_gaps, after.dead_letters, after.outbox_storage.write_blocked], [16, 0, 0, false]);
    assertWellFormed(receiver.requests(), E2E_NODE_ID);
  } finally {
    await stopAll(hn, receiver, origin, redis);
  }
});

// The jobs the killed node held stay locked until BullMQ's stalled-job check of the
// restarted node's worker finds the locks lapsed (15 s).
test('kill -9 of a node on Redis mid-delivery: after a restart its held and queued events are delivered', async () => {
  const redis = await startRedisServer();
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  receiver.respond(() => ({ status: 200, delayMs: 300 }));
  const origin = await startOrigin();
  // One event a request: a backlog waits in Redis behind the requests in flight.
  const hn = await startHookNode({ origin, redisUrl: redis.url, hook: { url: receiver.url(), batch_size: 1 } });
  try {
    const ports = await hn.curlFlows(12);
    await hn.sinkWhen((s) => s.pending + s.total_delivered === 12 && s.pending > 0, 'a backlog of the twelve in Redis');
    await waitFor(() => receiver.inFlight() > 0, 5000, 'a delivery in flight');
    await hn.node.kill9();

    receiver.respond(() => ({ status: 200 }));
    await hn.restart();
    const after = await hn.sinkWhen((s) => s.pending === 0 && completedById(receiver.acknowledged()).size === 12, 'every flow.completed delivered after the restart', { timeoutMs: 40_000 });
    assert.equal([...completedById(receiver.acknowledged()).values()].map(sourcePortOf).sort(), [...ports].sort());
    assert.equal([after.outbox_storage.store, after.dead_letters], ['redis', 0]);
    assertWellFormed(receiver.requests(), E2E_NODE_ID);
  } finally {
    await stopAll(hn, receiver, origin, redis);
  }
});

test('Redis out of memory with a backlog in it: new flow.completed wait in the outage journal, and once Redis has room every one is delivered and counted once, with no gap', async () => {
  const redis = await startRedisServer();
  const admin = new Redis(redis.url);
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  // The receiver is down: a backlog builds in Redis.
  receiver.respond(() => ({ status: 503 }));
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, redisUrl: redis.url, hook: { url: receiver.url(), concurrency: 1 } });
  try {
    const ports = await hn.curlFlows(6);
    await hn.sinkWhen((s) => s.pending === 6 && s.total_failed > 0, 'a backlog of six in Redis');
    // Full: under noeviction Redis now refuses every write that could grow it.
    await admin.config('SET', 'maxmemory', '1');
    ports.push(...(await hn.curlFlows(6)));
    const during = await hn.sinkWhen((s) => s.pending === 12 && /outage journal/.test(s.last_error?.message ?? ''), 'the six new ones in the outage journal');
    assert.equal([during.replay_gaps, during.outbox_storage.write_blocked], [0, false], 'no gap, no write block');
    receiver.respond(() => ({ status: 200 }));
    await admin.config('SET', 'maxmemory', '0');
    // A job a worker took while Redis filled up may stay active until its lock lapses
    // (15 s) and the stalled-job checks hand it on.
    const after = await hn.sinkWhen(
      (s) => s.pending === 0 && completedById(receiver.acknowledged()).size === 12,
      'every flow.completed delivered once Redis has room',
      { timeoutMs: 60_000 },
    );
    const completed = completedById(receiver.acknowledged());
    assert.equal([...completed.values()].map(sourcePortOf).sort(), [...ports].sort(), 'one flow.completed per curl');
    assert.equal([after.total_delivered, after.replay_gaps, after.dead_letters, after.outbox_storage.write_blocked], [12, 0, 0, false]);
    assertWellFormed(receiver.requests(), E2E_NODE_ID);
  } finally {
    await admin.config('SET', 'maxmemory', '0').catch(() => undefined);
    admin.disconnect();
    await stopAll(hn, receiver, origin, redis);
  }
});

test('a Redis that stops answering holds nothing back: the events go to the outage journal and, once Redis answers, are delivered and counted once', async () => {
  const redis = await startRedisServer();
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  const origin = await startOrigin();
  // Batches: a lease asks for more entries than the embedded store holds, so it would ask Redis too.
  const hn = await startHookNode({ origin, redisUrl: redis.url, hook: { url: receiver.url(), batch_size: 8 } });
  const deliveredPorts = (): Set<number> => new Set([...completedById(receiver.acknowledged()).values()].map(sourcePortOf));
  try {
    const before = await hn.curlFlows(2);
    await waitFor(() => before.every((p) => deliveredPorts().has(p)), WAIT_MS, 'the first two delivered through Redis');
    // Connections stay open, nothing is answered.
    redis.freeze();
    const ports = await hn.curlFlows(4);
    await hn.sinkWhen((s) => s.pending === 4 && /outage journal/.test(s.last_error?.message ?? ''), 'the four in the outage journal', { timeoutMs: 20_000 });
    assert.ok(!ports.some((p) => deliveredPorts().has(p)), 'nothing delivers from the journal');
    redis.thaw();
    await waitFor(() => ports.every((p) => deliveredPorts().has(p)), WAIT_MS, 'every flow.completed of the frozen spell delivered');
    const after = await hn.sinkWhen((s) => s.pending === 0, 'nothing pending');
    assert.is(after.total_delivered, completedById(receiver.acknowledged()).size, 'counted once each');
    assertWellFormed(receiver.requests(), E2E_NODE_ID);
  } finally {
    redis.thaw();
    await stopAll(hn, receiver, origin, redis);
  }
});

test('a SIGTERM while Redis hangs with deliveries in flight still ends the node; after a restart every flow.completed is delivered', async () => {
  const redis = await startRedisServer();
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  // Deliveries hang: their leases are out when Redis stops answering.
  receiver.respond(() => ({ status: 200, delayMs: 60_000 }));
  const origin = await startOrigin();
  // One event per request (and per job), so two of the four are requests in flight.
  const hn = await startHookNode({ origin, redisUrl: redis.url, hook: { url: receiver.url(), timeout_ms: 30_000, batch_size: 1 } });
  try {
    const ports = await hn.curlFlows(4);
    await hn.sinkWhen((s) => s.pending === 4, 'the four in the Redis outbox');
    await waitFor(() => receiver.inFlight() === 2, 5000, 'two deliveries in flight');
    redis.freeze();
    // stop() gives the node 10 s before it SIGKILLs it (exit code null).
    assert.is(await hn.node.stop(), 0, `weir's log (tail): ${hn.node.stdout().slice(-3000)}`);

    redis.thaw();
    receiver.respond(() => ({ status: 200 }));
    await hn.restart();
    // The two the stopped node held stay active until their locks lapse (15 s) and two stalled-job checks (15 s apart) pass.
    await hn.sinkWhen((s) => s.pending === 0 && completedById(receiver.acknowledged()).size === 4, 'every flow.completed delivered after the restart', { timeoutMs: 60_000 });
    assert.equal([...completedById(receiver.acknowledged()).values()].map(sourcePortOf).sort(), [...ports].sort());
  } finally {
    redis.thaw();
    await stopAll(hn, receiver, origin, redis);
  }
});

/** Redis comes back without its data: killed, its AOF removed, started again. */
async function restartEmpty(redis: RedisServer): Promise<void> {
  await redis.kill9();
  for (const entry of fs.readdirSync(redis.dir)) fs.rmSync(path.join(redis.dir, entry), { recursive: true, force: true });
  await redis.restart();
}

/** The sequences of the flow.completed the receiver never acknowledged, from the node's JSONL archive. */
function undelivered(events: string, receiver: { acknowledged(): Record<string, unknown>[] }): number[] {
  const acked = new Set(receiver.acknowledged().map((e) => e['event_id']));
  return ofType(readJsonl(events), 'flow.completed')
    .filter((e) => !acked.has(e.event_id))
    .map((e) => e.sequence);
}

function assertCovered(lost: readonly number[], gaps: readonly { from_sequence: number; to_sequence: number }[]): void {
  for (const seq of lost) assert.ok(gaps.some((g) => g.from_sequence <= seq && seq <= g.to_sequence), `sequence ${seq} is in a gap: ${JSON.stringify(gaps)}`);
}

test('Redis restarted without its data while the node runs: the pending flow.completed are a replay gap, the counters stay, a warning says so', async () => {
  const redis = await startRedisServer();
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  receiver.respond(() => ({ status: 200 }));
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, redisUrl: redis.url, hook: { url: receiver.url(), backoff_base_ms: 5000, backoff_max_ms: 5000 } });
  try {
    await hn.curlFlows(3);
    await hn.sinkWhen((s) => s.total_delivered === 3, 'three delivered');
    receiver.respond(() => ({ status: 400 }));
    await hn.curlFlows(1);
    await hn.sinkWhen((s) => s.dead_letters === 1, 'one dead letter');
    const deadLettered = undelivered(hn.events, receiver);
    receiver.respond(() => ({ status: 500 }));
    await hn.curlFlows(4);
    const before = await hn.sinkWhen((s) => s.pending === 4 && s.total_failed >= 4, 'four pending in Redis, each failed once');
    await restartEmpty(redis);

    const after = await hn.sinkWhen((s) => s.replay_gaps === 1, 'the loss counted as a replay gap', { timeoutMs: 15_000 });
    const lost = undelivered(hn.events, receiver).filter((seq) => !deadLettered.includes(seq));
    assert.is(lost.length, 4);
    assertCovered(lost, after.gaps ?? []);
    assert.ok(after.total_delivered >= before.total_delivered && after.total_failed >= before.total_failed, JSON.stringify(after));
    const warnings = await warningsOf(hn.events, 'outbox_lost');
    assert.is(warnings.length, 1);
    assert.match(String(warnings[0]!.payload['message']), 'Redis lost the outbox of sink "hook" while the node ran');
    assert.match(String(warnings[0]!.payload['message']), 'the dead letters it held (1) are gone');

    // Delivery goes on for what comes after.
    receiver.respond(() => ({ status: 200 }));
    const later = await hn.curlFlows(2);
    await waitFor(() => later.every((p) => [...completedById(receiver.acknowledged()).values()].map(sourcePortOf).includes(p)), WAIT_MS, 'the later two delivered');
  } finally {
    await stopAll(hn, receiver, origin, redis);
  }
});

test('Redis restarted without its data while the node was stopped: the next start counts the pending ones as a replay gap', async () => {
  const redis = await startRedisServer();
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  receiver.respond(() => ({ status: 500 }));
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, redisUrl: redis.url, hook: { url: receiver.url() } });
  try {
    await hn.curlFlows(3);
    const before = await hn.sinkWhen((s) => s.pending === 3 && s.total_failed >= 3, 'three pending in Redis');
    assert.is(await hn.node.stop(), 0);
    await restartEmpty(redis);
    await hn.restart();

    const after = await hn.sinkWhen((s) => s.replay_gaps === 1, 'the loss counted as a replay gap');
    assertCovered(undelivered(hn.events, receiver), after.gaps ?? []);
    assert.ok(after.total_failed >= before.total_failed, JSON.stringify(after));
    const warnings = await warningsOf(hn.events, 'outbox_lost');
    assert.match(String(warnings[0]!.payload['message']), 'while the node was stopped');
  } finally {
    await stopAll(hn, receiver, origin, redis);
  }
});

test('config.apply of a Webhook sink while Redis hangs is answered, and the sink keeps its events in its outage journal until Redis answers', async () => {
  const redis = await startRedisServer();
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  const billingReceiver = await startWebhookReceiver(HOOK_TOKEN);
  const origin = await startOrigin();
  // The `hook` sink opens the node's Redis store at start.
  const hn = await startHookNode({ origin, redisUrl: redis.url, hook: { url: receiver.url() } });
  try {
    await hn.sinkWhen((s) => s.outbox_storage.store === 'redis', 'the hook sink on Redis');
    redis.freeze();
    const billing = { type: 'webhook', tag: 'billing', url: billingReceiver.url(), token: HOOK_TOKEN, events: ['flow.completed'] };
    const applied = await hn.api('/config/apply', { method: 'POST', body: { upsert_sinks: [billing] } });
    assert.is(applied.status, 200, applied.text);
    const port = await hn.curlFlow();
    await hn.sinkWhen((s) => s.pending === 1, 'the flow.completed in the new sink\'s journal', { tag: 'billing', timeoutMs: 20_000 });
    redis.thaw();
    await waitFor(
      () => [...completedById(billingReceiver.acknowledged()).values()].some((e) => sourcePortOf(e) === port),
      WAIT_MS,
      'the flow.completed at the new sink',
    );
    const warnings = ofType(readJsonl(hn.events), 'engine.warning').map((e) => e.payload['code']);
    assert.ok(warnings.includes('redis_unreachable'), `engine.warning redis_unreachable: ${warnings.join(', ')}`);
    assertWellFormed(billingReceiver.requests(), E2E_NODE_ID);
  } finally {
    redis.thaw();
    await stopAll(hn, receiver, billingReceiver, origin, redis);
  }
});

test('a Webhook sink replaced while Redis is down goes back to Redis when it returns, and its Redis backlog is delivered', async () => {
  const redis = await startRedisServer();
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  receiver.respond(() => ({ status: 503 }));
  const origin = await startOrigin();
  const hook = { url: receiver.url(), backoff_base_ms: 100, backoff_max_ms: 1000 };
  const hn = await startHookNode({ origin, redisUrl: redis.url, hook });
  try {
    const ports = await hn.curlFlows(4);
    await hn.sinkWhen((s) => s.outbox_storage.store === 'redis' && s.pending === 4, 'a backlog of four in Redis');
    await redis.stop();
    // Replaced while Redis is down: its opening gives up on Redis and takes the embedded store.
    const replaced = { type: 'webhook', tag: 'hook', token: HOOK_TOKEN, events: ['flow.completed'], ...hook, backoff_max_ms: 1500 };
    const applied = await hn.api('/config/apply', { method: 'POST', body: { upsert_sinks: [replaced] } });
    assert.is(applied.status, 200, applied.text);
    assert.equal(applied.json.sinks.replaced.map((s: { tag: string }) => s.tag), ['hook']);
    ports.push(await hn.curlFlow());

    await redis.restart();
    receiver.respond(() => ({ status: 200 }));
    await waitFor(() => deliveredAll(receiver.acknowledged(), ports), 30_000, 'the Redis backlog and the event of the outage delivered');
    const after = await hn.sinkWhen((s) => s.pending === 0, 'nothing pending', { timeoutMs: 10_000 });
    assert.equal([after.outbox_storage.store, after.replay_gaps], ['redis', 0]);
  } finally {
    await stopAll(hn, receiver, origin, redis);
  }
});

test.run();
