// `make soak`: one node under mixed load for SOAK_S seconds (600) with a Redis outbox, a
// JSONL archive of every event and a Webhook sink whose receiver flaps, while Redis is
// SIGKILLed and restarted three times and hangs once, the node is killed with kill -9
// and restarted twice, a slow SSE consumer pauses and the config is reloaded (with
// SOAK_WORKERS above 1, node.workers, and a worker is killed with kill -9 twice). Then the oracle (soak-oracle.ts) on
// what the archive, the receiver and the node say; one table, exit 1 when it fails.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { killAllNow } from '../bench/children.js';
import { formatReport, num, type ReportRow } from '../bench/fleet-report.js';
import { weirLoadBinary } from '../bench/native-build.js';
import { startOrigins } from '../bench/origins.js';
import { rssKiB } from '../bench/proc-stats.js';
import { freePort, freePorts } from '../support/free-port.js';
import { startRedisServer } from '../support/redis-server.js';
import type { SinkView } from '../support/webhook-node.js';
import { startWebhookReceiver, type Answer, type WebhookReceiver } from '../support/webhook-receiver.js';
import { runWeir } from '../support/weir-bin.js';
import { readArchiveFiles } from './archive-files.js';
import { level, type Sample } from './level.js';
import { mixedLoad, type LoadTotals } from './mixed-load.js';
import { receiverPhases, type PhaseKind } from './receiver-phases.js';
import { startSlowSseReader } from './slow-sse-reader.js';
import { archivePath, SINK_TIMEOUT_MS, SOAK_ACCOUNT, SOAK_API_KEY, SOAK_SINK, SOAK_TOKEN } from './soak-config.js';
import { soakNode, type SoakNode } from './soak-node.js';
import { judge, type Verdict } from './soak-oracle.js';
import { soakRows, type Faults } from './soak-report.js';
import { envKnob } from '../bench/env-knob.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

const SOAK_S = envKnob('soak', 'SOAK_S', 600, 60);
/** node.workers; above 1 a worker is killed with kill -9 at each of WORKER_KILLS. */
const WORKERS = envKnob('soak', 'SOAK_WORKERS', 1, 1);
/** Each load cycle: a burst at full speed, then a rest (mixed-load.ts). */
const BURST_MS = envKnob('soak', 'SOAK_BURST_MS', 1000, 100);
const REST_MS = envKnob('soak', 'SOAK_REST_MS', 2000, 0);
/** RSS and open files are read this often; level.ts takes the floor of each twentieth of the run. */
const SAMPLE_MS = 2000;
/** Bound on the wait, after the load, for the sink's backlog to drain. */
const SETTLE_MS = 300_000;
/**
 * Below this the last half is too short for a level: a Redis outage a few seconds before
 * the end still shows in RSS. The figures are printed, not judged.
 */
const LEVEL_MIN_S = 300;
const REDIS_DOWN_MS = 5000;
/** A Redis that hangs with its connections open: appends time out (3 s) and go to the embedded store. */
const REDIS_STALL_MS = 10_000;
/**
 * When the faults strike, as shares of SOAK_S. The node's last run starts well before
 * the last half, where the levels are read, so its warm-up is not taken for growth; the
 * last quarter has no fault, so what a Redis outage held comes back down before the end.
 */
const NODE_KILLS = [0.1, 0.25];
const REDIS_KILLS = [0.3, 0.6, 0.75];
const WORKER_KILLS = WORKERS > 1 ? [0.4, 0.7] : [];
const REDIS_STALL_AT = 0.65;
const RELOAD_AT = 0.5;
const BATCH_SIZE = 100;
const RELOADED_BATCH_SIZE = 50;

const say = (line: string): void => console.log(`soak: ${new Date().toISOString().slice(11, 19)} ${line}`);

function answerFor(kind: Exclude<PhaseKind, 'down'>): Answer {
  switch (kind) {
    case 'ok':
      return { status: 200 };
    case 'timeouts':
      return { status: 200, delayMs: SINK_TIMEOUT_MS + 1000 };
    case 'errors':
      return { status: 500 };
    case 'throttled':
      return { status: 429, headers: { 'retry-after': '2' } };
  }
}

async function setPhase(receiver: WebhookReceiver, kind: PhaseKind): Promise<void> {
  if (kind === 'down') return receiver.stop();
  receiver.respond(() => answerFor(kind));
  await receiver.start().catch(() => undefined);
}

function openFiles(pid: number): number {
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

/** Runs `action` `atS` seconds after `start`; every action of the soak is one of these, side by side. */
async function at(start: number, atS: number, what: string, action: () => Promise<void>): Promise<void> {
  await sleep(Math.max(0, start + atS * 1000 - Date.now()));
  say(what);
  await action();
}

/** Waits (at most SETTLE_MS) until three reads running find nothing pending and nothing in flight; the last read and how long it took. */
async function drained(node: SoakNode, receiver: WebhookReceiver): Promise<{ view: SinkView | undefined; settleS: number }> {
  const settleStart = Date.now();
  let settled = 0;
  let view = await node.sink();
  while (Date.now() - settleStart < SETTLE_MS && settled < 3) {
    await sleep(1000);
    view = await node.sink();
    settled = view !== undefined && view.pending === 0 && receiver.inFlight() === 0 ? settled + 1 : 0;
  }
  return { view, settleS: (Date.now() - settleStart) / 1000 };
}

interface Outcome {
  readonly rows: ReportRow[];
  readonly failures: string[];
}

async function soak(dir: string, cleanups: (() => Promise<void>)[]): Promise<Outcome> {
  const binary = weirLoadBinary(REPO);
  const redis = await startRedisServer();
  cleanups.push(async () => {
    redis.thaw();
    await redis.close();
  });
  const origins = await startOrigins(binary);
  cleanups.push(() => origins.close());
  const receiver = await startWebhookReceiver(SOAK_TOKEN);
  cleanups.push(() => receiver.close());
  const closedPort = await freePort();
  const [socksPort, httpPort, controlPort] = await freePorts(3);
  const stateDir = path.join(dir, 'node');
  const node: SoakNode = soakNode({
    stateDir,
    socksPort: socksPort!,
    httpPort: httpPort!,
    controlPort: controlPort!,
    redisUrl: redis.url,
    receiverUrl: receiver.url(),
    batchSize: BATCH_SIZE,
    workers: WORKERS,
  });
  await node.boot();
  cleanups.push(async () => void (await node.stop().catch(() => null)));

  const start = Date.now();
  const rss: Sample[] = [];
  const fds: Sample[] = [];
  const sampler = setInterval(() => {
    const pid = node.current().pid;
    const [r, f] = [rssKiB(pid), openFiles(pid)];
    const atS = (Date.now() - start) / 1000;
    if (r > 0) rss.push({ at: atS, value: r });
    if (f > 0) fds.push({ at: atS, value: f });
  }, SAMPLE_MS);
  cleanups.push(async () => clearInterval(sampler));
  const sse = startSlowSseReader(`http://127.0.0.1:${controlPort}/api/v1/events/stream`, SOAK_API_KEY, 5000, 60_000, say);
  cleanups.push(() => sse.stop());

  const totals: LoadTotals = { socks: 0, http: 0, failed: 0, clientErrors: 0 };
  const faults: Faults = { nodeRestartMs: [], redisKills: 0, workerKills: 0, workers: WORKERS, redisStalls: 0, reloadedAtS: null };
  const phases = receiverPhases(SOAK_S);
  say(`load for ${SOAK_S} s; receiver ${phases.map((p) => `${p.kind} ${num(p.fromS)}-${num(p.toS)} s`).join(', ')}`);
  await Promise.all([
    mixedLoad(
      binary,
      { socksPort: socksPort!, httpPort: httpPort!, account: SOAK_ACCOUNT, echoOncePort: origins.echoOncePort, closedPort },
      start + SOAK_S * 1000,
      BURST_MS,
      REST_MS,
      totals,
    ),
    ...phases.map((p) => at(start, p.fromS, `receiver: ${p.kind}`, () => setPhase(receiver, p.kind))),
    ...NODE_KILLS.map((share) =>
      at(start, share * SOAK_S, 'kill -9 of the node, then its restart', async () => {
        await node.kill9();
        const t0 = Date.now();
        await node.boot();
        faults.nodeRestartMs.push(Date.now() - t0);
      }),
    ),
    ...REDIS_KILLS.map((share) =>
      at(start, share * SOAK_S, `SIGKILL of Redis, restarted after ${REDIS_DOWN_MS} ms`, async () => {
        await redis.kill9();
        await sleep(REDIS_DOWN_MS);
        await redis.restart();
        faults.redisKills += 1;
      }),
    ),
    ...WORKER_KILLS.map((share) =>
      at(start, share * SOAK_S, 'kill -9 of a worker', async () => {
        await node.killWorker();
        faults.workerKills += 1;
      }),
    ),
    at(start, REDIS_STALL_AT * SOAK_S, `SIGSTOP of Redis for ${REDIS_STALL_MS} ms`, async () => {
      redis.freeze();
      await sleep(REDIS_STALL_MS);
      redis.thaw();
      faults.redisStalls += 1;
    }),
    at(start, RELOAD_AT * SOAK_S, `SIGHUP: batch_size ${BATCH_SIZE} → ${RELOADED_BATCH_SIZE}, the sink is replaced`, async () => {
      node.reload(RELOADED_BATCH_SIZE);
      faults.reloadedAtS = (Date.now() - start) / 1000;
    }),
  ]);
  const loadSeconds = (Date.now() - start) / 1000;
  clearInterval(sampler);

  say(`load over; waiting up to ${SETTLE_MS / 1000} s for the sink to drain`);
  await setPhase(receiver, 'ok');
  const { view, settleS } = await drained(node, receiver);
  await sse.stop();
  const stopCode = await node.stop();
  const offline = await runWeir(['connector', 'state', '--json', node.current().configPath]);
  const offlineHook = offline.code === 0 ? (JSON.parse(offline.stdout) as { tag: string; total_delivered: number }[]).find((s) => s.tag === SOAK_SINK) : undefined;

  const archive = readArchiveFiles(archivePath(stateDir));
  const acknowledged = receiver.acknowledged().map((e) => String(e['event_id']));
  const verdict: Verdict = judge({
    archive,
    acknowledged,
    gaps: view?.gaps ?? [],
    replayGaps: view?.replay_gaps ?? 0,
    totalDelivered: view?.total_delivered ?? -1,
    deadLetters: view?.dead_letters ?? 0,
  });
  // Kept with the run's dir (SOAK_KEEP=1) for a look at the curves.
  fs.writeFileSync(path.join(dir, 'samples.json'), JSON.stringify({ rss, fds }));
  const rssLevel = level(rss, loadSeconds);
  const fdLevel = level(fds, loadSeconds);
  const failures = [...verdict.failures];
  if (view === undefined) failures.push('the node did not answer GET /api/v1/sinks after the load');
  else if (view.pending !== 0) failures.push(`${view.pending} events still pending after ${num(settleS)} s`);
  if (SOAK_S >= LEVEL_MIN_S && rssLevel.grows) failures.push('RSS grows over the last half');
  if (SOAK_S >= LEVEL_MIN_S && fdLevel.grows) failures.push('open files grow over the last half');
  if (stopCode !== 0) failures.push(`the node's stop exited ${stopCode}`);
  const rows = soakRows({
    soakS: SOAK_S,
    loadSeconds,
    burstMs: BURST_MS,
    restMs: REST_MS,
    totals,
    faults,
    redisDownMs: REDIS_DOWN_MS,
    redisStallMs: REDIS_STALL_MS,
    requests: receiver.requests(),
    archive,
    verdict,
    view,
    offlineDelivered: offlineHook?.total_delivered ?? null,
    settleS,
    sse: sse.figures(),
    rss: rssLevel,
    fds: fdLevel,
    levelJudged: SOAK_S >= LEVEL_MIN_S,
    failures,
  });
  return { rows, failures };
}

async function main(): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-soak-'));
  process.once('exit', () => {
    killAllNow();
    if (!process.env['SOAK_KEEP']) fs.rmSync(dir, { recursive: true, force: true });
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
  say(`${new Date().toISOString()}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), node ${process.version}, dir ${dir}`);
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const outcome = await soak(dir, cleanups);
    console.log(`\n${formatReport(outcome.rows)}`);
    return outcome.failures.length === 0 ? 0 : 1;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => say(`cleanup: ${String(error)}`));
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('soak failed:', error);
    process.exit(1);
  },
);
