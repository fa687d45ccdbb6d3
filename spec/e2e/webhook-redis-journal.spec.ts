import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventsOf } from '../../actors/outbox/bullmq-jobs.js';
import { sinkKeys } from '../../actors/outbox/bullmq-keys.js';
import { ADDED_FIELD } from '../../actors/outbox/bullmq-counts.js';
import { ofType, readJsonl, type JsonEnvelope } from '../support/jsonl.js';
import { E2E_NODE_ID } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startRedisReplyCut } from '../support/redis-reply-cut.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { inAnyGap, type Gap } from '../support/replay-gaps.js';
import { runWeir } from '../support/weir-bin.js';
import { waitFor } from '../support/wait-for.js';
import { completedById } from '../support/webhook-expect.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { startDeliver, type DeliverProcess } from '../support/weir-deliver.js';
import { HOOK_TOKEN, startHookNode, type HookNode, type SinkView } from '../support/webhook-node.js';
import { sinkQueue } from '../support/sink-queue.js';

const QUEUE = `${E2E_NODE_ID}/hook`;
/** How long Redis stays stopped under load. */
const OUTAGE_MS = Number(process.env['JOURNAL_OUTAGE_MS'] ?? 20_000);

/** curl through the node, `lanes` at a time, until `stop()`; resolves with how many flows ran. */
async function load(hn: HookNode, lanes: number, stop: () => boolean): Promise<number> {
  let flows = 0;
  const lane = async (): Promise<void> => {
    // Bounded: at most this many flows per lane, whatever happens to the stop.
    for (let i = 0; i < 2000 && !stop(); i++) {
      await hn.curlFlow();
      flows++;
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return flows;
}

/** The sink's `pending` as Redis alone counts it: what reached the queue. */
async function pendingInRedis(url: string): Promise<number> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    return Number((await redis.hget(sinkKeys(E2E_NODE_ID, 'hook').state, 'pending')) ?? 0);
  } finally {
    redis.disconnect();
  }
}

/** The event ids the sink's queue holds, a job's events each. */
async function queuedEventIds(url: string): Promise<string[]> {
  const keys = sinkKeys(E2E_NODE_ID, 'hook');
  const queue = sinkQueue(url, keys);
  try {
    const jobs = await queue.getJobs(['wait', 'delayed', 'active', 'prioritized']);
    return jobs.flatMap((j) => eventsOf(j.data).map((e) => e.id));
  } finally {
    await queue.close();
  }
}

/** Removes the sink's completed jobs, as their expiry does. */
async function removeCompleted(url: string): Promise<void> {
  const keys = sinkKeys(E2E_NODE_ID, 'hook');
  const queue = sinkQueue(url, keys);
  try {
    await queue.clean(0, 100_000, 'completed');
  } finally {
    await queue.close();
  }
}

/** `weir connector state --json`: the sink as Redis and the state dir tell it with no node running. */
async function offlineSink(configPath: string): Promise<SinkView> {
  const offline = await runWeir(['connector', 'state', '--json', configPath]);
  assert.is(offline.code, 0, offline.stderr);
  return (JSON.parse(offline.stdout) as SinkView[]).find((s) => s.tag === 'hook')!;
}

/** The flow.completed the node archived, and those of them outside every gap (owed delivery). */
function archived(hn: HookNode, gaps: readonly Gap[]): { all: JsonEnvelope[]; owed: JsonEnvelope[] } {
  const all = ofType(readJsonl(hn.events), 'flow.completed');
  return { all, owed: all.filter((e) => !inAnyGap(e.sequence, gaps)) };
}

/**
 * With the node stopped: a `weir deliver` process delivers the sink's queue. Every
 * archived flow.completed is acknowledged or inside a reported gap, total_delivered is
 * the number of distinct acknowledged events, and nothing is dead; with `once`, no
 * event was acknowledged twice either. Resolves with the process, for the caller to stop.
 */
async function deliverAndAccount(hn: HookNode, receiver: WebhookReceiver, once = false): Promise<DeliverProcess> {
  const { all, owed } = archived(hn, (await offlineSink(hn.configPath)).gaps ?? []);
  const deliver = await startDeliver(hn.configPath, QUEUE);
  const want = new Set(owed.map((e) => e.event_id));
  const allAcked = (): boolean => {
    const acked = completedById(receiver.acknowledged());
    return [...want].every((id) => acked.has(id));
  };
  await waitFor(allAcked, 120_000, 'every owed flow.completed delivered by weir deliver', 1000).catch(async (err: unknown) => {
    const acked = completedById(receiver.acknowledged());
    const missing = owed.filter((e) => !acked.has(e.event_id)).map((e) => e.sequence);
    await deliver.stop();
    throw new Error(`${(err as Error).message}: ${missing.length} of ${owed.length} missing (${missing.slice(0, 20).join(' ')}); sink ${JSON.stringify(await offlineSink(hn.configPath))}`, { cause: err });
  });
  const s = await waitFor(async () => {
    const view = await offlineSink(hn.configPath);
    return view.pending === 0 ? view : undefined;
  }, 20_000, 'nothing pending');
  const acked = completedById(receiver.acknowledged());
  assert.is(s.total_delivered, acked.size, 'total_delivered is the number of distinct acknowledged events');
  for (const e of all) assert.ok(acked.has(e.event_id) || inAnyGap(e.sequence, s.gaps ?? []), `flow.completed ${e.sequence} acknowledged or in a reported gap`);
  assert.is(s.dead_letters, 0);
  if (once) assert.is(receiver.acknowledged().filter((e) => e['event_type'] === 'flow.completed').length, acked.size, 'each acknowledged once');
  return deliver;
}

/**
 * Stops Redis under load for OUTAGE_MS (`outage` stops and `back` resumes it), waits for
 * the journal to reach the queue, stops the node, and lets a `weir deliver` process
 * deliver the queue: every archived flow.completed is acknowledged or in a reported
 * gap, and total_delivered is the number of distinct acknowledged events.
 */
async function outageUnderLoad(outage: (redis: RedisServer) => Promise<void>, back: (redis: RedisServer) => Promise<void>): Promise<void> {
  const redis = await startRedisServer();
  const receiver: WebhookReceiver = await startWebhookReceiver(HOOK_TOKEN);
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, redisUrl: redis.url, hook: { url: receiver.url(), delivery: 'external', batch_size: 10, timeout_ms: 10_000 } });
  let stopped = false;
  const flows = load(hn, 3, () => stopped);
  let deliver: DeliverProcess | null = null;
  try {
    await sleep(2000);
    await outage(redis);
    const during = await hn.sinkWhen((s) => /outage journal/.test(s.last_error?.message ?? '') && s.pending > 0, 'events in the outage journal', { timeoutMs: 15_000 });
    assert.is(during.outbox_storage.write_blocked, false, 'the journal takes the writes');
    await sleep(OUTAGE_MS);
    await back(redis);
    await sleep(2000);
    stopped = true;
    assert.ok((await flows) > 0, 'flows ran');
    // The journal reached the queue: Redis alone counts every archived flow.completed outside a gap.
    const moved = await hn.sinkWhen(
      (s) => s.last_error === null || !/outage journal/.test(s.last_error.message),
      'the outage over',
      { timeoutMs: 30_000 },
    );
    await waitFor(async () => (await pendingInRedis(redis.url)) === archived(hn, (await hn.sink())!.gaps ?? []).owed.length, 30_000, 'the journal in the queue');
    assert.is(receiver.requests().length, 0, 'nothing delivered before the workers start');
    const queued = await queuedEventIds(redis.url);
    const inQueue = new Set(queued);
    const owedNow = archived(hn, (await hn.sink())!.gaps ?? []).owed.map((e) => e.event_id);
    assert.equal(
      { missing: owedNow.filter((id) => !inQueue.has(id)).length, twice: queued.length - inQueue.size },
      { missing: 0, twice: 0 },
      'the queue holds every owed event once',
    );
    assert.ok(moved.pending > 0);
    await hn.node.stop();
    deliver = await deliverAndAccount(hn, receiver);
  } finally {
    stopped = true;
    redis.thaw();
    await flows.catch(() => 0);
    await deliver?.stop();
    await hn.node.stop();
    await receiver.close();
    await origin.close();
    await redis.close();
  }
}

test('Redis hung (SIGSTOP) for 20 s under SOCKS5 load: the outage journal reaches the queue, and weir deliver delivers it with the node stopped', () =>
  outageUnderLoad(
    async (redis) => redis.freeze(),
    async (redis) => redis.thaw(),
  ));

test('Redis down (stopped) for 20 s under SOCKS5 load: the outage journal reaches the queue, and weir deliver delivers it with the node stopped', () =>
  outageUnderLoad(
    (redis) => redis.stop(),
    (redis) => redis.restart(),
  ));

test('a kill -9 of the node in the middle of the move (jobs added, no journal entry deleted yet), a restart after those jobs were delivered and expired: nothing lost, nothing counted or delivered twice', async () => {
  const redis = await startRedisServer();
  const link = await startRedisReplyCut(redis.port);
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, redisUrl: link.url, hook: { url: receiver.url(), delivery: 'external', batch_size: 1, timeout_ms: 10_000 } });
  const admin = new Redis(redis.url);
  let stopped = false;
  let flows: Promise<number> = Promise.resolve(0);
  let deliver: DeliverProcess | null = null;
  try {
    redis.freeze();
    flows = load(hn, 3, () => stopped);
    await hn.sinkWhen((s) => s.pending >= 300, 'three hundred in the outage journal', { timeoutMs: 60_000 });
    stopped = true;
    await flows;
    // The move's first count of the jobs it added never reaches Redis: the move waits
    // with its jobs in the queue and its journal entries kept, and the node is killed then.
    link.stall(ADDED_FIELD);
    redis.thaw();
    const waiting = async (): Promise<number> => admin.llen(`${sinkKeys(E2E_NODE_ID, 'hook').base}wait`);
    await waitFor(() => link.met() === 1, 30_000, 'the move adding jobs');
    const last = await waiting();
    const owedBefore = archived(hn, []).owed.length;
    assert.ok(last > 0 && last <= owedBefore, `the journal in the queue (${last} of ${owedBefore})`);
    await hn.node.kill9();

    // A `weir deliver` delivers what the move added, and the completed jobs are removed
    // as their expiry removes them (KEEP_COMPLETED_S after delivery): BullMQ forgets their ids.
    deliver = await startDeliver(hn.configPath, QUEUE);
    await waitFor(async () => (await waiting()) === 0 && completedById(receiver.acknowledged()).size >= last, 60_000, 'the moved jobs delivered');
    await deliver.stop();
    deliver = null;
    await removeCompleted(redis.url);
    await hn.restart();
    const delivered = completedById(receiver.acknowledged());
    // The move deletes its moving hash once the journal is empty.
    await waitFor(async () => (await admin.exists(sinkKeys(E2E_NODE_ID, 'hook').moving)) === 0, 30_000, "the restart's move ended");
    const queued = await queuedEventIds(redis.url);
    assert.ok(queued.length + delivered.size >= owedBefore, 'the rest of the journal in the queue after the restart');
    assert.equal(queued.filter((id) => delivered.has(id)), [], 'nothing delivered is queued again');
    assert.is(queued.length, new Set(queued).size, 'no event in two jobs');
    await hn.node.stop();
    deliver = await deliverAndAccount(hn, receiver, true);
  } finally {
    stopped = true;
    redis.thaw();
    await flows.catch(() => 0);
    admin.disconnect();
    await deliver?.stop();
    await hn.node.stop();
    await receiver.close();
    await origin.close();
    await link.close();
    await redis.close();
  }
});

test.run();
