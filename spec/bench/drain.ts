// Issue 21: two `weir deliver` workers draining a node's Redis backlog, beside two raw
// BullMQ worker processes draining as many jobs from the same Redis.
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import type { ConnectorState } from '../../actors/contracts/sink.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { waitFor } from '../support/wait-for.js';
import { startDeliver, type DeliverProcess } from '../support/weir-deliver.js';
import { addEnvelopeJobs } from './bullmq-raw.js';
import { record, type Comparison } from './compare.js';
import { archivedIds, connectorState, HOOK_SINK, hookTarget, lifecycleEventsOf, LOAD_CONCURRENCY, startHookNode, writeDeliverConfig, type HookNode } from './hook-node.js';
import { rateRun, type Load } from './proxy-steps.js';
import { startAckReceiver, type AckReceiver } from './sink-receiver.js';
import { startBullmqWorker } from './sink-runner.js';
import type { DrainedWorker } from './sink-messages.js';

export interface DrainSettings {
  /** Events of the backlog (at least; the load stops once the sink shows as many pending). */
  readonly events: number;
  readonly workers: number;
  /** Bound on building the backlog, and on draining it. */
  readonly timeoutMs: number;
}

/** A drain by worker processes: from their spawn, and from the first delivery, to the last. */
export interface DrainRate {
  readonly events: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly perSecondFromFirst: number;
}

export interface DrainResult {
  /** The load's length, and the time until the node had written the backlog to the outbox (from the load's start). */
  readonly backlog: { readonly events: number; readonly flows: number; readonly seconds: number; readonly writtenSeconds: number; readonly pendingShown: number };
  readonly weir: DrainRate & {
    readonly delivered: number;
    readonly missing: number;
    readonly unexpected: number;
    readonly duplicates: number;
    readonly api: ConnectorState;
    readonly cli: ConnectorState;
    readonly countersExact: boolean;
  };
  readonly raw: DrainRate | null;
  readonly comparison: Comparison;
  readonly notes: string[];
}

const NODE_ID = 'drain';
const RAW = 'raw BullMQ';
const WEIR = 'weir deliver';
/** Jobs per addBulk when filling the raw queue; the node's outbox does not limit its own. */
const RAW_FILL_BATCH = 1000;
/** Raw workers' concurrency, as the sinks part's raw BullMQ run. */
const RAW_CONCURRENCY = 50;
const say = (line: string): void => console.log(`drain: ${line}`);

function drainRate(events: number, startedAt: number, firstAt: number, lastAt: number): DrainRate {
  const seconds = (lastAt - startedAt) / 1000;
  return { events, seconds, perSecond: events / seconds, perSecondFromFirst: events / Math.max(0.001, (lastAt - firstAt) / 1000) };
}

/**
 * Short connections through the node, with no worker running, until its flows have
 * produced `events` lifecycle events: each slice of load is sized by the rate of the
 * ones before. The node writes its events to the outbox behind the load, so the sink's
 * pending lags; the backlog is built when pending and the archive stop moving.
 */
async function buildBacklog(node: HookNode, l: Load, s: DrainSettings): Promise<Omit<DrainResult['backlog'], 'events'>> {
  const started = Date.now();
  let flows = 0;
  let sliceMs = 2000;
  for (let slice = 0; ; slice += 1) {
    const run = await rateRun(hookTarget(node), l, LOAD_CONCURRENCY, sliceMs);
    flows += run.completed;
    const produced = lifecycleEventsOf(await node.stats());
    const spent = (Date.now() - started) / 1000;
    say(`backlog slice ${slice + 1}: ${run.completed} flows at ${run.perSecond.toFixed(0)}/s, ${produced} events produced, ${(await node.sink()).pending} pending`);
    if (produced >= s.events) break;
    if (Date.now() - started > s.timeoutMs) throw new Error(`the node produced ${produced} of ${s.events} events in ${s.timeoutMs} ms`);
    const perMs = Math.max(1, produced) / (spent * 1000);
    sliceMs = Math.min(20_000, Math.max(500, Math.ceil((s.events - produced) / perMs)));
  }
  const loaded = Date.now();
  let last = '';
  const settled = await waitFor(
    async () => {
      const now = `${(await node.sink()).pending}/${fs.statSync(node.archive).size}`;
      const same = now === last;
      last = now;
      return same;
    },
    s.timeoutMs,
    'the backlog written',
    1000,
  ).then(() => true, () => false);
  if (!settled) say(`the backlog was still being written after ${s.timeoutMs} ms`);
  const { pending } = await node.sink();
  return { flows, seconds: (loaded - started) / 1000, writtenSeconds: (Date.now() - started) / 1000, pendingShown: pending };
}

/** Tallies what arrived against the archived ids. */
function check(receiver: AckReceiver, ids: readonly string[]): { delivered: number; missing: number; unexpected: number; duplicates: number } {
  const { deliveries } = receiver.tally();
  const archived = new Set(ids);
  let duplicates = 0;
  let unexpected = 0;
  for (const [id, times] of deliveries) {
    duplicates += times - 1;
    if (!archived.has(id)) unexpected += 1;
  }
  const missing = ids.filter((id) => !deliveries.has(id)).length;
  return { delivered: deliveries.size, missing, unexpected, duplicates };
}

async function drainWithWeir(dir: string, redis: RedisServer, receiver: AckReceiver, node: HookNode, ids: readonly string[], s: DrainSettings): Promise<DrainResult['weir']> {
  const configPath = writeDeliverConfig(path.join(dir, 'deliver'), redis.url, receiver.url);
  const startedAt = Date.now();
  const workers: DeliverProcess[] = [];
  try {
    const starting = Array.from({ length: s.workers }, () => startDeliver(configPath, `${NODE_ID}/${HOOK_SINK}`));
    for (const w of await Promise.allSettled(starting)) if (w.status === 'fulfilled') workers.push(w.value);
    if (workers.length < s.workers) throw new Error(`${s.workers - workers.length} weir deliver workers did not start`);
    const archived = new Set(ids);
    await waitFor(
      () => receiver.tally().deliveries.size >= ids.length && [...archived].every((id) => receiver.tally().deliveries.has(id)),
      s.timeoutMs,
      `${ids.length} events delivered`,
      250,
    );
    const { firstNewAt, lastNewAt } = receiver.tally();
    // Pending reaches 0 once the workers' acknowledgements are in Redis; a late duplicate would arrive meanwhile.
    await waitFor(async () => (await node.sink()).pending === 0, 30_000, 'pending 0', 250).catch(() => say('pending did not reach 0 within 30 s'));
    await sleep(2000);
    const [api, cli] = [await node.sink(), await connectorState(node.configPath)];
    const tallied = check(receiver, ids);
    const countersExact = api.total_delivered === tallied.delivered && cli.total_delivered === tallied.delivered && api.pending === 0 && cli.pending === 0;
    return { ...drainRate(tallied.delivered, startedAt, firstNewAt as number, lastNewAt as number), ...tallied, api, cli, countersExact };
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
  }
}

/** The same number of one-event jobs, added with no worker running, then taken by `workers` raw BullMQ worker processes. */
async function drainWithRaw(redis: RedisServer, events: number, s: DrainSettings): Promise<DrainRate> {
  const connection = { url: redis.url, maxRetriesPerRequest: null };
  const queue = new Queue('raw-drain', { connection });
  try {
    await addEnvelopeJobs(queue, events, RAW_FILL_BATCH);
    const startedAt = Date.now();
    const workers = Array.from({ length: s.workers }, (_, i) =>
      startBullmqWorker({ kind: 'bullmq-worker', redisUrl: redis.url, queue: 'raw-drain', concurrency: RAW_CONCURRENCY }, `raw-drain-${i + 1}`),
    );
    const left = async (): Promise<number> => {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      return Object.values(counts).reduce((sum, n) => sum + n, 0);
    };
    const drained = await waitFor(async () => (await left()) === 0, s.timeoutMs, 'the raw queue drained', 100).then(
      () => null,
      (error: unknown) => error,
    );
    const results: DrainedWorker[] = await Promise.all(workers.map((w) => w.stop()));
    if (drained) throw drained;
    const completed = results.reduce((sum, r) => sum + r.completed, 0);
    if (completed < events) throw new Error(`raw BullMQ workers completed ${completed} of ${events} jobs`);
    const firstAt = Math.min(...results.flatMap((r) => (r.firstAt === null ? [] : [r.firstAt])));
    const lastAt = Math.max(...results.flatMap((r) => (r.lastAt === null ? [] : [r.lastAt])));
    return drainRate(completed, startedAt, firstAt, lastAt);
  } finally {
    await queue.close();
  }
}

function describeCounters(label: string, c: ConnectorState): string {
  return `${label} total_delivered ${c.total_delivered}, pending ${c.pending}, total_failed ${c.total_failed}, replay_gaps ${c.replay_gaps}`;
}

/**
 * A node with the Redis store and an external Webhook sink builds a backlog under the
 * native client's short connections, with a JSONL archive of the same events; then
 * `workers` `weir deliver` processes drain it to the acknowledging receiver, which
 * tallies every event_id. Raw BullMQ drains as many one-event jobs after, with the node
 * stopped.
 */
export async function benchDrain(tmp: string, l: Load, s: DrainSettings): Promise<DrainResult> {
  const notes: string[] = [];
  const dir = fs.mkdtempSync(path.join(tmp, 'drain-'));
  const redis = await startRedisServer();
  const receiver = await startAckReceiver({ byEventId: true });
  let node: HookNode | null = null;
  try {
    node = await startHookNode({ nodeId: NODE_ID, stateDir: path.join(dir, 'node'), redisUrl: redis.url, receiverUrl: receiver.url, delivery: 'external', archive: true });
    const built = await buildBacklog(node, l, s);
    const ids = archivedIds(node);
    const backlog = { ...built, events: ids.length };
    say(
      `backlog of ${ids.length} events (archived) from ${built.flows} flows in ${built.seconds.toFixed(1)} s of load, ` +
        `written to the outbox ${built.writtenSeconds.toFixed(1)} s after the load's start (${(ids.length / built.writtenSeconds).toFixed(0)} events/s); the sink shows ${built.pendingShown} pending`,
    );
    if (built.pendingShown !== ids.length) notes.push(`drain: the sink showed ${built.pendingShown} pending for ${ids.length} archived events`);
    const weir = await drainWithWeir(dir, redis, receiver, node, ids, s);
    say(
      `${s.workers} × ${WEIR}: ${weir.perSecond.toFixed(0)} events/s from their spawn (${weir.seconds.toFixed(1)} s), ${weir.perSecondFromFirst.toFixed(0)} from the first delivery; ` +
        `${weir.delivered - weir.unexpected}/${ids.length} event_ids delivered, ${weir.missing} missing, ${weir.unexpected} not archived, ${weir.duplicates} duplicates`,
    );
    say(`${describeCounters('API', weir.api)}; ${describeCounters('weir connector state', weir.cli)}; equal to the distinct events delivered with pending 0: ${weir.countersExact ? 'yes' : 'NO'}`);
    if (!weir.countersExact) notes.push(`drain: counters not exact: ${describeCounters('API', weir.api)}; ${describeCounters('CLI', weir.cli)}; ${weir.delivered} distinct delivered`);
    await node.node.stop();
    node = null;
    const raw = await drainWithRaw(redis, ids.length, s).catch((error: unknown) => {
      notes.push(`drain: raw BullMQ failed: ${error instanceof Error ? error.message : String(error)}`);
      say(notes.at(-1) as string);
      return null;
    });
    if (raw) say(`${s.workers} × ${RAW} worker: ${raw.perSecond.toFixed(0)} jobs/s from their spawn (${raw.seconds.toFixed(1)} s), ${raw.perSecondFromFirst.toFixed(0)} from the first job`);
    const comparison: Comparison = {
      label: `drain of a ${ids.length.toLocaleString('en-US')}-event backlog by ${s.workers} worker processes, from their spawn`,
      unit: 'events/s',
      digits: 0,
      baseline: raw ? RAW : null,
      samples: {},
    };
    record(comparison, WEIR, weir.perSecond);
    if (raw) record(comparison, RAW, raw.perSecond);
    return { backlog, weir, raw, comparison, notes };
  } finally {
    await node?.node.stop();
    await receiver.close();
    await redis.close();
  }
}
