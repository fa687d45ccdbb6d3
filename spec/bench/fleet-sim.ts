// `make fleet-sim`: one Redis (or with FLEET_REDIS=cluster a Redis Cluster of
// FLEET_SHARDS masters and a replica of each), FLEET_NODES weir nodes with an external
// Webhook sink, two `weir deliver` workers and one acknowledging receiver, all on
// loopback; the native load client spreads short connections over the nodes. Prints one
// table of the fleet's figures and one of its Redis per shard (docs/fleet.md cites
// them), then `weir fleet` after two nodes were killed, and, after their restart, where
// every archived flow.completed of every node ended up: it exits 1 if one is neither
// acknowledged nor inside a replay gap a node reported.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { startDeliver, type DeliverProcess } from '../support/weir-deliver.js';
import { killAllNow } from './children.js';
import { collectArrivals, delivered, type Arrival } from './fleet-arrivals.js';
import { deliverConfig, FLEET_SINK, FLEET_TOKEN } from './fleet-config.js';
import { formatAccounts } from './fleet-accounting.js';
import { archivedIds, restartFleetNode, spreadLoad, startFleetNodes, stopFleetNodes, type FleetNode } from './fleet-nodes.js';
import { fleetJson, fleetTable, startFleetRedis, type FleetRedis, type FleetRedisKind } from './fleet-redis.js';
import { fleetStates, formatReport, num, reportRows } from './fleet-report.js';
import { formatShards, perEvent, shardFigures, type ShardKeys, type ShardSample } from './fleet-shards.js';
import { treeCpuTicks } from './proc-stats.js';
import { quietCount, settleAccounts } from './fleet-settle.js';
import { weirLoadBinary } from './native-build.js';
import { startOrigins } from './origins.js';
import { envKnob } from './env-knob.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const WORKERS = 2;
const KILLED = 2;

const REDIS_KINDS: readonly FleetRedisKind[] = ['standalone', 'cluster'];
const REDIS_KIND = ((): FleetRedisKind => {
  const raw = process.env['FLEET_REDIS'] || 'standalone';
  if ((REDIS_KINDS as readonly string[]).includes(raw)) return raw as FleetRedisKind;
  console.error(`fleet-sim: FLEET_REDIS takes ${REDIS_KINDS.join(' or ')}, not ${JSON.stringify(raw)}`);
  process.exit(2);
})();
/** Masters of the cluster, each with a replica (FLEET_REDIS=cluster). */
const SHARDS = envKnob('fleet-sim', 'FLEET_SHARDS', 3, 3);
const NODES = envKnob('fleet-sim', 'FLEET_NODES', 20, KILLED + 1);
/** Load clients' connections in flight per node. */
const CONCURRENCY = envKnob('fleet-sim', 'FLEET_CONCURRENCY', 2, 1);
const LOAD_MS = envKnob('fleet-sim', 'FLEET_LOAD_MS', 20_000, 1000);
const IDLE_MS = envKnob('fleet-sim', 'FLEET_IDLE_MS', 20_000, 1000);
/** The short loads that leave a backlog: with no worker running, and with the receiver refusing. */
const BACKLOG_MS = envKnob('fleet-sim', 'FLEET_BACKLOG_MS', 3000, 500);
/**
 * Bounds on the waits for deliveries: of the loads; of the killed nodes' backlog in
 * Redis, once no new one arrived for KILLED_QUIET_MS; of the fleet after the restart.
 */
const DELIVERY_WAIT_MS = 180_000;
const KILLED_WAIT_MS = 60_000;
const KILLED_QUIET_MS = 5000;
const SETTLE_WAIT_MS = 120_000;

const say = (line: string): void => console.log(`fleet-sim: ${line}`);

/** The shards sampled at both ends of an idle window of `ms`, and its length in seconds. */
async function idleWindow(redis: FleetRedis, ms: number): Promise<{ samples: [ShardSample[], ShardSample[]]; seconds: number }> {
  const [s0, t0] = [await redis.sample(), performance.now()];
  await sleep(ms);
  const [s1, t1] = [await redis.sample(), performance.now()];
  return { samples: [s0, s1], seconds: (t1 - t0) / 1000 };
}

const usedMemory = (samples: readonly ShardSample[]): number => samples.reduce((sum, s) => sum + s.usedMemory, 0);
const nodeKeyBytes = (keys: readonly ShardKeys[]): number => keys.reduce((sum, k) => sum + k.nodeKeyBytes, 0);

/** Waits until the nodes' presences show `total` pending events on the sink; false if they do not within 20 s. */
async function presencesShow(fleetConfig: string, total: number): Promise<boolean> {
  const pendingNow = async (): Promise<number> =>
    (await fleetJson(fleetConfig)).reduce((sum, m) => sum + (m.presence?.sinks.find((s) => s.tag === FLEET_SINK)?.pending ?? 0), 0);
  return waitFor(async () => (await pendingNow()) === total, 20_000, `${total} pending in the presences`, 1000).then(
    () => true,
    () => false,
  );
}

async function simulate(dir: string, cleanups: (() => Promise<void>)[]): Promise<{ text: string; accounted: boolean }> {
  const binary = weirLoadBinary(REPO);
  const redis = await startFleetRedis(REDIS_KIND, SHARDS);
  cleanups.push(() => redis.close());
  const origins = await startOrigins(binary);
  cleanups.push(() => origins.close());
  const receiver = await startWebhookReceiver(FLEET_TOKEN);
  cleanups.push(() => receiver.close());
  const arrivals = new Map<string, Arrival>();
  let read = 0;
  const allArrived = (ids: readonly string[], what: string): Promise<unknown> =>
    waitFor(() => {
      read = collectArrivals(arrivals, receiver.requests(), read);
      return ids.every((id) => arrivals.has(id));
    }, DELIVERY_WAIT_MS, what, 250);
  const archivedAll = (nodes: readonly FleetNode[]): string[] => nodes.flatMap(archivedIds);

  // The workers' config is also what `weir fleet -c` reads: it names the fleet's Redis.
  const deliverPath = path.join(dir, 'deliver.json');
  fs.mkdirSync(path.join(dir, 'deliver'));
  fs.writeFileSync(deliverPath, JSON.stringify(deliverConfig(path.join(dir, 'deliver'), redis.address, receiver.url())));

  const empty = await redis.sample();
  say(`starting ${NODES} nodes on ${redis.description}`);
  const nodes = await startFleetNodes(NODES, dir, redis.address, receiver.url());
  cleanups.push(() => stopFleetNodes(nodes));
  await waitFor(async () => (await fleetJson(deliverPath)).filter((m) => m.state === 'up').length === NODES, 30_000, 'every node up in weir fleet', 1000);
  await sleep(3000);
  say(`idle for ${IDLE_MS} ms`);
  const idle = await idleWindow(redis, IDLE_MS);
  const keys = await redis.keys();
  const idleMemory = usedMemory(idle.samples[0]);

  say(`backlog: ${BACKLOG_MS} ms of load with no worker running`);
  await spreadLoad(binary, origins, nodes, CONCURRENCY, BACKLOG_MS);
  // The archives take the last flow.completed of the load a moment after its clients end.
  await quietCount(() => archivedAll(nodes).length, 2000, 10_000);
  const backlog = archivedAll(nodes);
  if (!(await presencesShow(deliverPath, backlog.length))) say(`the presences did not show ${backlog.length} pending within 20 s; the figure counts the archives`);
  const backlogMemory = usedMemory(await redis.sample());
  const backlogKeyBytes = nodeKeyBytes(await redis.keys());
  say(`starting ${WORKERS} weir deliver workers`);
  const drainStart = Date.now();
  const workers: DeliverProcess[] = [];
  cleanups.push(async () => void (await Promise.all(workers.map((w) => w.stop()))));
  for (let i = 0; i < WORKERS; i += 1) workers.push(await startDeliver(deliverPath, `${nodes[0]!.id}/${FLEET_SINK}`));
  await allArrived(backlog, 'the backlog delivered');
  const drain = delivered(arrivals.values(), drainStart);
  await sleep(3000);
  say(`idle with the workers for ${IDLE_MS} ms`);
  const idleWithWorkers = await idleWindow(redis, IDLE_MS);
  const shards = shardFigures({
    empty,
    idle: idle.samples,
    idleWithWorkers: idleWithWorkers.samples,
    seconds: [idle.seconds, idleWithWorkers.seconds],
    keys,
    nodes: NODES,
    workers: WORKERS,
  });
  const fleetShard = shards.at(-1)!;

  say(`load: ${LOAD_MS} ms, ${CONCURRENCY} connections per node`);
  const workerTicks = (): number => workers.reduce((sum, w) => sum + treeCpuTicks(w.pid), 0);
  const [beforeLoad, ticksBeforeLoad] = [await redis.sample(), workerTicks()];
  const loadStart = Date.now();
  const load = await spreadLoad(binary, origins, nodes, CONCURRENCY, LOAD_MS);
  await allArrived(archivedAll(nodes), 'the load delivered');
  const ofLoad = delivered(arrivals.values(), loadStart);
  const loadCost = perEvent(beforeLoad, await redis.sample(), ofLoad.events);
  // Clock ticks are 1/100 s on Linux.
  const workerCpuMsPerEvent = ((workerTicks() - ticksBeforeLoad) * 10) / ofLoad.events;

  const fleetBefore = await fleetJson(deliverPath);
  const victims = nodes.slice(-KILLED);
  const victimNames = victims.map((v) => v.id).join(', ');
  say(`receiver refusing; ${BACKLOG_MS} ms of load, then kill -9 of ${victimNames}`);
  receiver.respond(() => ({ status: 503 }));
  await spreadLoad(binary, origins, nodes, CONCURRENCY, BACKLOG_MS);
  const killedAt = Date.now();
  await Promise.all(victims.map((v) => v.node.kill9()));
  const fleetAtKill = await fleetJson(deliverPath);
  receiver.respond(() => ({ status: 200 }));
  const victimIds = new Set(victims.map((v) => v.id));
  const staleAfterMs = await waitFor(
    async () => (await fleetJson(deliverPath)).filter((m) => victimIds.has(m.node_id) && m.state === 'stale').length === KILLED,
    30_000,
    'the killed nodes stale',
    500,
  ).then(
    () => Date.now() - killedAt,
    () => null,
  );
  const fleetAfter = await fleetJson(deliverPath);
  const table = await fleetTable(deliverPath);
  const killedArchive = archivedAll(victims);
  say("the workers deliver the killed nodes' backlog in Redis");
  const killedDelivered = await quietCount(
    () => {
      read = collectArrivals(arrivals, receiver.requests(), read);
      return killedArchive.filter((id) => arrivals.has(id)).length;
    },
    KILLED_QUIET_MS,
    KILLED_WAIT_MS,
  );

  say(`restarting ${victimNames} from their state dirs; accounting for every archived flow.completed`);
  const restarted = await Promise.all(victims.map(restartFleetNode));
  cleanups.push(() => stopFleetNodes(restarted));
  const fleet = nodes.map((n) => restarted.find((r) => r.id === n.id) ?? n);
  const settled = await settleAccounts(
    fleet,
    () => {
      read = collectArrivals(arrivals, receiver.requests(), read);
      return arrivals;
    },
    SETTLE_WAIT_MS,
  );
  if (!settled.accounted) say(`not every archived flow.completed accounted for within ${SETTLE_WAIT_MS} ms`);
  const accounts = settled.accounts;
  const fleetRestarted = fleetStates(await fleetJson(deliverPath));

  const report = formatReport(
    reportRows({
      nodes: NODES,
      workers: WORKERS,
      redis: redis.description,
      concurrency: CONCURRENCY,
      loadMs: LOAD_MS,
      idleMs: IDLE_MS,
      idleBytesPerNode: fleetShard.usedMemoryPerHomedNode,
      idleCommandsPerNode: fleetShard.commandsPerHomedNode,
      idleCommandsPerNodeWithWorkers: fleetShard.commandsPerSecondWithWorkers / NODES,
      pending: backlog.length,
      bytesPerPending: backlog.length > 0 ? (backlogMemory - idleMemory) / backlog.length : Number.NaN,
      keyBytesPerPending: backlog.length > 0 ? (backlogKeyBytes - nodeKeyBytes(keys)) / backlog.length : Number.NaN,
      drain,
      load,
      delivered: ofLoad,
      commandsPerEvent: loadCost.commands,
      redisCpuMsPerEvent: loadCost.cpuMs,
      workerCpuMsPerEvent,
      killed: victims.map((v) => v.id),
      fleetBefore,
      fleetAtKill,
      fleetAfter,
      staleAfterMs,
      killedArchived: killedArchive.length,
      killedDelivered,
    }),
  );
  return {
    text: `${report}\n\n${redis.description}, per shard (${num(IDLE_MS / 1000)} s idle windows):\n${formatShards(shards)}\n\n$ weir fleet -c deliver.json   # after the TTL\n${table}\n\nafter the restart of ${victimNames} (weir fleet: ${fleetRestarted}):\n${formatAccounts(accounts, victimIds)}`,
    accounted: settled.accounted,
  };
}

async function main(): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-fleet-sim-'));
  process.once('exit', () => {
    killAllNow();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
  say(`${new Date().toISOString()}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), node ${process.version}`);
  if (os.cpus().length < NODES / 4) say(`${NODES} nodes on ${os.cpus().length} CPUs: the figures per second measure the machine's limit; those per node at idle hold`);
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const { text, accounted } = await simulate(dir, cleanups);
    console.log(`\n${text}`);
    return accounted ? 0 : 1;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => say(`cleanup: ${String(error)}`));
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('fleet-sim failed:', error);
    process.exit(1);
  },
);
