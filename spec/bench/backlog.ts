// Issue 21: whether a Webhook sink of every flow lifecycle event keeps up with a node at
// its full short-connection rate, through each outbox store with the default config.
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { findBinary } from '../support/find-binary.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { waitFor } from '../support/wait-for.js';
import { backlogTrend, type BacklogSample, type BacklogTrend } from './backlog-trend.js';
import { hookTarget, lifecycleEventsOf, LOAD_CONCURRENCY, startHookNode, type HookNode } from './hook-node.js';
import { rateRun, type Load, type RateRun } from './proxy-steps.js';
import { startAckReceiver } from './sink-receiver.js';

export interface BacklogSettings {
  readonly seconds: number;
  readonly sampleMs: number;
  /** Bound on the wait, after the load, for the sink to deliver what is left. */
  readonly settleMs: number;
}

type Store = 'redis' | 'embedded';

/** One reading during the load: the sink's pending, and the events produced but not yet delivered. */
export interface Reading {
  readonly at: number;
  readonly pending: number;
  readonly undelivered: number;
}

export interface BacklogRun {
  readonly store: Store;
  readonly flowsPerSecond: number;
  readonly failedFlows: number;
  /** Node CPU (all threads) per flow, in µs. */
  readonly nodeCpuUsPerFlow: number;
  /** Lifecycle events the node produced and the sink delivered, per second of the load. */
  readonly producedPerSecond: number;
  readonly deliveredPerSecond: number;
  readonly readings: Reading[];
  /** The trend of the events not yet delivered (the backlog), and of the sink's pending. */
  readonly undelivered: BacklogTrend;
  readonly pending: BacklogTrend;
  readonly undeliveredAtEnd: number;
  readonly pendingAtEnd: number;
  /** Seconds after the load until every event produced was delivered; null if not within settleMs. */
  readonly drainedAfter: number | null;
  readonly totalFailed: number;
  /** Ranges of events the sink missed (its queue to the outbox overflowed, or the outbox refused them). */
  readonly replayGaps: number;
}

export interface BacklogResult {
  readonly runs: BacklogRun[];
  readonly notes: string[];
}

const say = (line: string): void => console.log(`backlog: ${line}`);

async function read(node: HookNode, start: number): Promise<Reading> {
  const [sink, stats] = await Promise.all([node.sink(), node.stats()]);
  return { at: (performance.now() - start) / 1000, pending: sink.pending, undelivered: lifecycleEventsOf(stats) - sink.total_delivered };
}

/** Reads the node every sampleMs until `done` settles. */
async function readUntil(node: HookNode, done: Promise<unknown>, start: number, sampleMs: number): Promise<Reading[]> {
  const readings: Reading[] = [];
  let over = false;
  const settled = done.then(
    () => (over = true),
    () => (over = true),
  );
  while (!over) {
    await Promise.race([sleep(sampleMs), settled]);
    if (!over) readings.push(await read(node, start));
  }
  return readings;
}

async function runStore(store: Store, dir: string, redis: RedisServer | null, receiverUrl: string, l: Load, s: BacklogSettings): Promise<BacklogRun> {
  const node = await startHookNode({
    nodeId: `backlog-${store}`,
    stateDir: fs.mkdtempSync(path.join(dir, `${store}-`)),
    redisUrl: store === 'redis' ? (redis?.url ?? null) : null,
    receiverUrl,
    delivery: 'node',
    archive: false,
  });
  try {
    const [sink0, stats0] = await Promise.all([node.sink(), node.stats()]);
    const start = performance.now();
    const load = rateRun(hookTarget(node), l, LOAD_CONCURRENCY, s.seconds * 1000);
    const [readings, run]: [Reading[], RateRun] = await Promise.all([readUntil(node, load, start, s.sampleMs), load]);
    const [sink1, stats1] = await Promise.all([node.sink(), node.stats()]);
    const seconds = (performance.now() - start) / 1000;
    const produced = lifecycleEventsOf(stats1) - lifecycleEventsOf(stats0);
    const producedPerSecond = produced / seconds;
    const end = await read(node, start);
    const settleStart = performance.now();
    const drainedAfter = await waitFor(async () => (await read(node, start)).undelivered <= 0, s.settleMs, 'every event delivered', 250).then(
      () => (performance.now() - settleStart) / 1000,
      () => null,
    );
    const series = (pick: (r: Reading) => number): BacklogSample[] => readings.map((r) => ({ at: r.at, backlog: pick(r) }));
    return {
      store,
      flowsPerSecond: run.perSecond,
      failedFlows: run.failed,
      nodeCpuUsPerFlow: run.cpuUs,
      producedPerSecond,
      deliveredPerSecond: (sink1.total_delivered - sink0.total_delivered) / seconds,
      readings,
      undelivered: backlogTrend(series((r) => r.undelivered), seconds, producedPerSecond),
      pending: backlogTrend(series((r) => r.pending), seconds, producedPerSecond),
      undeliveredAtEnd: end.undelivered,
      pendingAtEnd: end.pending,
      drainedAfter,
      ...(await node.sink().then((c) => ({ totalFailed: c.total_failed, replayGaps: c.replay_gaps }))),
    };
  } finally {
    await node.node.stop();
  }
}

const whole = (n: number | null): string => (n === null ? '-' : n.toFixed(0));

function trend(name: string, t: BacklogTrend): string {
  return `${name} mean middle third ${whole(t.middleMean)}, last third ${whole(t.lastMean)}, slope ${t.slopePerSecond.toFixed(1)}/s (${t.bounded ? 'bounded' : 'GROWING'})`;
}

function describe(r: BacklogRun): string {
  return [
    `${r.store}: ${r.flowsPerSecond.toFixed(0)} flows/s (${r.failedFlows} failed, node ${r.nodeCpuUsPerFlow.toFixed(0)} µs CPU/flow), ${r.producedPerSecond.toFixed(0)} events/s produced, ${r.deliveredPerSecond.toFixed(0)} delivered`,
    `${r.store}: undelivered ${r.readings.map((p) => p.undelivered).join(' ')}`,
    `${r.store}: pending     ${r.readings.map((p) => p.pending).join(' ')}`,
    `${r.store}: ${trend('undelivered', r.undelivered)}; ${trend('pending', r.pending)}`,
    `${r.store}: at the end ${r.undeliveredAtEnd} undelivered, ${r.pendingAtEnd} pending; ` +
      `${r.drainedAfter === null ? 'not all delivered within the wait' : `all delivered ${r.drainedAfter.toFixed(1)} s later`}, total_failed ${r.totalFailed}, replay_gaps ${r.replayGaps}`,
  ].join('\n  ');
}

/**
 * For each store (the Redis one when redis-server is installed), a fresh node with a
 * Webhook sink of every flow lifecycle event (default config, delivered by the node) to
 * the acknowledging receiver, under the native client's short connections for
 * `seconds`, read every sampleMs. The backlog is the lifecycle events the node's flow
 * counters say it produced less the sink's total_delivered: the sink's pending leaves
 * out events the node has not yet written to its outbox.
 */
export async function benchBacklog(tmp: string, l: Load, s: BacklogSettings): Promise<BacklogResult> {
  const notes: string[] = [];
  const dir = fs.mkdtempSync(path.join(tmp, 'backlog-'));
  const receiver = await startAckReceiver();
  const redis = findBinary('redis-server') ? await startRedisServer() : null;
  if (!redis) notes.push('backlog: the redis store skipped, redis-server is not installed');
  const runs: BacklogRun[] = [];
  try {
    for (const store of redis ? (['redis', 'embedded'] as const) : (['embedded'] as const)) {
      const run = await runStore(store, dir, redis, receiver.url, l, s).catch((error: unknown) => {
        notes.push(`backlog ${store}: failed: ${error instanceof Error ? error.message : String(error)}`);
        say(notes.at(-1) as string);
        return null;
      });
      if (!run) continue;
      runs.push(run);
      say(describe(run));
      if (!run.undelivered.bounded) notes.push(`backlog ${store}: the undelivered events grew ${run.undelivered.slopePerSecond.toFixed(1)}/s over the last two thirds`);
    }
  } finally {
    await receiver.close();
    await redis?.close();
  }
  return { runs, notes };
}
