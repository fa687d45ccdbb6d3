// `make bench`: weir beside a raw Node relay, microsocks and Dante, on loopback, in one run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { killAllNow } from './children.js';
import { measurePeer, type Settings } from './measure.js';
import { startOrigins } from './origins.js';
import { peers, startPeer, type PeerName } from './peers.js';
import { openFilesLimit } from './proc-stats.js';
import { formatTable, METRICS, summarize, writeResults, type Metric, type Samples } from './report.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SETTINGS: Settings = {
  sourceBytes: Number(process.env.BENCH_BYTES ?? 2 ** 29),
  rateWorkers: 50,
  rateMs: 3000,
  warmupMs: 500,
  idleCount: 5000,
  idleConcurrency: 100,
};

/**
 * The bench and its load client each hold one end of every idle tunnel; the proxy holds two.
 * Node raises its own soft limit to the hard one at start-up, and peers are started under
 * `ulimit -n` raised to the hard limit too, so only the hard limit can be too low.
 */
function ensureFdLimit(): void {
  const soft = openFilesLimit();
  const needed = 2 * SETTINGS.idleCount + 1000;
  if (soft >= needed) return;
  console.error(`bench: open-file limit is ${soft}; ${needed} needed for ${SETTINGS.idleCount} idle tunnels (raise ulimit -Hn)`);
  process.exit(1);
}

function rotate<T>(items: readonly T[], by: number): T[] {
  return items.map((_, i) => items[(i + by) % items.length] as T);
}

function describe(values: Partial<Record<Metric, number>>): string {
  return (Object.keys(METRICS) as Metric[])
    .filter((m) => values[m] !== undefined)
    .map((m) => `${m} ${(values[m] as number).toFixed(METRICS[m].digits)} ${METRICS[m].unit}`)
    .join(', ');
}

async function main(): Promise<void> {
  ensureFdLimit();
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
  const all = peers(REPO);
  for (const p of all) if (p.missing) console.log(`skip ${p.name}: ${p.missing}`);
  const runnable = all.filter((p) => p.missing === null);
  const samples: Samples = { throughput: {}, rate: {}, idle: {} };
  const notes: string[] = [];
  const origins = await startOrigins(SETTINGS.sourceBytes);
  const began = Date.now();
  for (let round = 0; round < ROUNDS; round += 1) {
    // Rotating the order spreads slow drifts of the machine over all peers alike.
    for (const peer of rotate(runnable, round)) {
      const label = `round ${round + 1}/${ROUNDS} ${peer.name}`;
      try {
        const running = await startPeer(peer, tmp, 15_000);
        const result = await measurePeer(running, origins, SETTINGS).finally(() => running.stop());
        for (const [metric, value] of Object.entries(result.values) as [Metric, number][]) {
          (samples[metric][peer.name as PeerName] ??= []).push(value);
        }
        notes.push(...result.notes.map((n) => `${label}: ${n}`));
        console.log(`${label}: ${describe(result.values)}${result.notes.length ? ` (${result.notes.join('; ')})` : ''}`);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        notes.push(`${label}: ${message}`);
        console.log(`${label}: failed: ${message}`);
      }
    }
  }
  await origins.close();
  const summary = summarize(samples);
  console.log(`\n${formatTable(summary)}\n`);
  const file = path.join(REPO, '.bench', 'results.json');
  writeResults(file, {
    when: new Date().toISOString(),
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? null, node: process.version, loadavg_at_start: load },
    settings: { rounds: ROUNDS, ...SETTINGS },
    seconds: (Date.now() - began) / 1000,
    skipped: all.filter((p) => p.missing).map((p) => ({ peer: p.name, reason: p.missing })),
    metrics: summary,
    notes,
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
