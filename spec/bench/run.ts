// `make bench`: weir beside a raw Node SOCKS5 relay, a raw Node TCP forwarder, microsocks,
// Dante and tinyproxy, on loopback, in one run, driven by a native load client; then weir
// through one SOCKS5 hop, sink delivery through each outbox store, `weir deliver` draining
// a backlog, a sink's backlog under a node's full connection rate, and the control plane's
// answers to an operator under load.
// BENCH_ONLY=proxy,hop,sinks,drain,backlog,limits (any of them, comma-separated) runs only those parts.
// BENCH_PEERS=node-socks5,weir,weir-w2 (comma-separated) measures only those peers in the proxy part.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inboundConnectionLimit } from '../../actors/inbounds/connection-budget.js';
import { openFilesLimit } from '../../actors/process/open-files-limit.js';
import { killAllNow } from './children.js';
import { benchBacklog, type BacklogSettings } from './backlog.js';
import { formatComparisons, summarizeComparison, type Comparison } from './compare.js';
import { benchDrain, type DrainSettings } from './drain.js';
import { benchHop } from './hop.js';
import { benchLimits, type LimitsSettings } from './limits.js';
import type { LoadRound } from './load-share.js';
import { measurePeer, type PeerRound, type Settings } from './measure.js';
import { weirLoadBinary } from './native-build.js';
import { startOrigins } from './origins.js';
import { peers, startPeer, type PeerName } from './peers.js';
import type { Load } from './proxy-steps.js';
import {
  emptyLoadSamples,
  emptySamples,
  formatLoadNotes,
  formatTable,
  METRICS,
  summarize,
  writeResults,
  type LoadGroup,
  type Metric,
} from './report.js';
import { benchSinks, type SinkSettings } from './sinks.js';
import { envKnob } from './env-knob.js';
import { workerRatios } from './worker-ratios.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SETTINGS: Settings = {
  streamBytes: Number(process.env.BENCH_BYTES ?? 2 ** 31),
  rateWorkers: 50,
  rateMs: 3000,
  warmupMs: 500,
  // A fresh weir settles at its steady CPU per connection after ~4.5 s of rate load (1.5 s
  // windows: ~950, 465, 440, 405 µs…); the raw relay after ~3 s.
  rateWarmupMs: 4000,
  idleCount: 5000,
  idleConcurrency: 100,
};
const SINK_SETTINGS: SinkSettings = {
  singleEvents: Number(process.env.BENCH_SINK_EVENTS ?? 2000),
  // A backlog of several seconds of delivery: a burst of 10,000 is over in under a second,
  // much of it before the JIT has compiled the delivery path.
  batchedEvents: Number(process.env.BENCH_SINK_BATCHED_EVENTS ?? 50_000),
  hotEvents: 20_000,
  timeoutMs: 60_000,
};
const DRAIN_SETTINGS: DrainSettings = {
  events: envKnob('bench', 'BENCH_DRAIN_EVENTS', 100_000),
  workers: 2,
  timeoutMs: 600_000,
};
const BACKLOG_SETTINGS: BacklogSettings = {
  seconds: envKnob('bench', 'BENCH_BACKLOG_SECONDS', 60),
  sampleMs: 2000,
  settleMs: 120_000,
};
/** BENCH_LIMITS_LISTINGS: `both` probes the whole flow listing beside its first page, `page` the page alone. */
function limitsListings(): 'both' | 'page' {
  const raw = process.env.BENCH_LIMITS_LISTINGS || 'both';
  if (raw === 'both' || raw === 'page') return raw;
  console.error(`bench: BENCH_LIMITS_LISTINGS takes both or page, not ${JSON.stringify(raw)}`);
  process.exit(2);
}
/** New connections under way at once in the `limits` part. */
const LIMITS_RATE_CONCURRENCY = 200;
/**
 * The node holds two descriptors per idle tunnel, under the hard limit (20,000 in some
 * containers), and its inbounds take at most inboundConnectionLimit client connections:
 * short of 10,000 tunnels, it holds what leaves room for the new connections under way.
 */
const LIMITS_SETTINGS: LimitsSettings = {
  tunnels: Math.max(1, Math.min(10_000, inboundConnectionLimit(openFilesLimit()) - LIMITS_RATE_CONCURRENCY)),
  tunnelConcurrency: 200,
  perSecond: 1000,
  rateConcurrency: LIMITS_RATE_CONCURRENCY,
  rateMs: envKnob('bench', 'BENCH_LIMITS_SECONDS', 30) * 1000,
  controlIdle: 5000,
  controlHoldMs: 10_000,
  healthEveryMs: 100,
  flowsEveryMs: envKnob('bench', 'BENCH_LIMITS_FLOWS_MS', 100),
  wholeListing: limitsListings() === 'both',
  budgetMs: 100,
};
const PARTS = ['proxy', 'hop', 'sinks', 'drain', 'backlog', 'limits'] as const;
type Part = (typeof PARTS)[number];

function selectedParts(): Part[] {
  const only = process.env.BENCH_ONLY;
  if (!only) return [...PARTS];
  const chosen = only.split(',').map((p) => p.trim());
  const unknown = chosen.filter((p) => !(PARTS as readonly string[]).includes(p));
  if (unknown.length > 0) {
    console.error(`bench: BENCH_ONLY takes ${PARTS.join(', ')} (comma-separated), not ${unknown.join(', ')}`);
    process.exit(1);
  }
  return PARTS.filter((p) => chosen.includes(p));
}

/**
 * The load client and the origin each hold one end of every idle tunnel; the proxy holds
 * two. Each of them raises its soft limit to the hard one, so only the hard limit can be
 * too low.
 */
function ensureFdLimit(): void {
  const soft = openFilesLimit() ?? Infinity;
  const needed = 2 * SETTINGS.idleCount + 1000;
  if (soft >= needed) return;
  console.error(`bench: open-file limit is ${soft}; ${needed} needed for ${SETTINGS.idleCount} idle tunnels (raise ulimit -Hn)`);
  process.exit(1);
}

function rotate<T>(items: readonly T[], by: number): T[] {
  return items.map((_, i) => items[(i + by) % items.length] as T);
}

function describe(result: PeerRound): string {
  const { values, load } = result;
  const figures = (Object.keys(METRICS) as Metric[])
    .filter((m) => values[m] !== undefined)
    .map((m) => `${m} ${(values[m] as number).toFixed(METRICS[m].digits)} ${METRICS[m].unit}`);
  const cores = (Object.entries(load) as [LoadGroup, LoadRound][]).map(
    ([group, r]) => `${group} load cores ${r.clientCores.toFixed(2)}/${r.originCores.toFixed(2)}`,
  );
  return [...figures, ...cores].join(', ');
}

interface ProxyPart {
  readonly metrics: ReturnType<typeof summarize>;
  readonly skipped: { peer: string; reason: string | null }[];
  readonly notes: string[];
}

async function benchProxies(l: Load, tmp: string): Promise<ProxyPart> {
  const all = peers(REPO);
  for (const p of all) if (p.missing) console.log(`skip ${p.name}: ${p.missing}`);
  const wanted = process.env.BENCH_PEERS?.split(',').map((p) => p.trim());
  const runnable = all.filter((p) => p.missing === null && (!wanted || wanted.includes(p.name)));
  const samples = emptySamples();
  const load = emptyLoadSamples();
  const notes: string[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    // Rotating the order spreads slow drifts of the machine over all peers alike.
    for (const peer of rotate(runnable, round)) {
      const label = `round ${round + 1}/${ROUNDS} ${peer.name}`;
      try {
        const running = await startPeer(peer, tmp, l.origins, 15_000);
        const result = await measurePeer(running, l, SETTINGS).finally(() => running.stop());
        for (const [metric, value] of Object.entries(result.values) as [Metric, number][]) {
          (samples[metric][peer.name as PeerName] ??= [])[round] = value;
        }
        for (const [group, cost] of Object.entries(result.load) as [LoadGroup, (typeof result.load)[LoadGroup]][]) {
          (load[group][peer.name as PeerName] ??= [])[round] = cost;
        }
        notes.push(...result.notes.map((n) => `${label}: ${n}`));
        console.log(`${label}: ${describe(result)}${result.notes.length ? ` (${result.notes.join('; ')})` : ''}`);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        notes.push(`${label}: ${message}`);
        console.log(`${label}: failed: ${message}`);
      }
    }
  }
  const metrics = summarize(samples, load);
  console.log(`\n${formatTable(metrics)}\n\n${formatLoadNotes(metrics)}\n\n${workerRatios(samples)}\n`);
  return { metrics, skipped: all.filter((p) => p.missing).map((p) => ({ peer: p.name, reason: p.missing })), notes };
}

function printComparisons(list: readonly Comparison[]): void {
  if (list.some((c) => Object.values(c.samples).some((v) => v.length > 0))) console.log(`\n${formatComparisons(list)}\n`);
}

/** Runs a part that fails as a whole (its node, Redis or workers) as a note, so the parts after it still run. */
async function orNote<T>(part: Part, run: () => Promise<T>, notes: string[]): Promise<T | null> {
  try {
    return await run();
  } catch (error) {
    notes.push(`${part}: failed: ${error instanceof Error ? error.message : String(error)}`);
    console.log(notes.at(-1));
    return null;
  }
}

async function main(): Promise<void> {
  const parts = selectedParts();
  if (parts.includes('proxy')) ensureFdLimit();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-bench-'));
  const cleanup = (): void => {
    killAllNow();
    fs.rmSync(tmp, { recursive: true, force: true });
  };
  process.once('exit', cleanup);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

  const [load] = os.loadavg();
  if ((load ?? 0) > os.cpus().length) {
    console.log(`warning: load average ${load?.toFixed(1)} on ${os.cpus().length} CPUs; other work will skew throughput and rate`);
  }
  const began = Date.now();
  const needsLoad = parts.some((p) => p !== 'sinks');
  const binary = needsLoad ? weirLoadBinary(REPO) : null;
  const driver: Load | null = binary ? { binary, origins: await startOrigins(binary) } : null;
  const proxy = driver && parts.includes('proxy') ? await benchProxies(driver, tmp) : null;
  const hop = driver && parts.includes('hop') ? await benchHop(REPO, tmp, driver, SETTINGS, ROUNDS) : null;
  const failures: string[] = [];
  const drain = driver && parts.includes('drain') ? await orNote('drain', () => benchDrain(tmp, driver, DRAIN_SETTINGS), failures) : null;
  const backlog = driver && parts.includes('backlog') ? await orNote('backlog', () => benchBacklog(tmp, driver, BACKLOG_SETTINGS), failures) : null;
  const limits = driver && parts.includes('limits') ? await orNote('limits', () => benchLimits(REPO, tmp, driver, LIMITS_SETTINGS), failures) : null;
  await driver?.origins.close();
  if (hop) printComparisons(hop.comparisons);
  if (drain) printComparisons([drain.comparison]);
  const sinks = parts.includes('sinks') ? await benchSinks(tmp, SINK_SETTINGS, ROUNDS) : null;
  if (sinks) printComparisons(sinks.comparisons);
  const file = path.join(REPO, '.bench', 'results.json');
  writeResults(file, {
    when: new Date().toISOString(),
    parts,
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? null, node: process.version, loadavg_at_start: load },
    settings: { rounds: ROUNDS, ...SETTINGS },
    sink_settings: SINK_SETTINGS,
    drain_settings: DRAIN_SETTINGS,
    backlog_settings: BACKLOG_SETTINGS,
    limits_settings: LIMITS_SETTINGS,
    seconds: (Date.now() - began) / 1000,
    skipped: proxy?.skipped ?? [],
    metrics: proxy?.metrics ?? null,
    hop: hop?.comparisons.map(summarizeComparison) ?? null,
    sinks: sinks?.comparisons.map(summarizeComparison) ?? null,
    drain: drain ? { backlog: drain.backlog, weir: drain.weir, raw: drain.raw, comparison: summarizeComparison(drain.comparison) } : null,
    backlog: backlog?.runs ?? null,
    limits: limits?.phases ?? null,
    notes: [
      ...(proxy?.notes ?? []),
      ...(hop?.notes ?? []),
      ...(drain?.notes ?? []),
      ...(backlog?.notes ?? []),
      ...(limits?.notes ?? []),
      ...failures,
      ...(sinks?.notes ?? []),
    ],
  });
  console.log(`results written to ${path.relative(process.cwd(), file) || file}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error('bench failed:', error);
    process.exit(1);
  },
);
