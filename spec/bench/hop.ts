// Issue 4: weir chaining through one SOCKS5 hop (microsocks) beside the same client going through microsocks directly.
import { setTimeout as sleep } from 'node:timers/promises';
import { record, type Comparison } from './compare.js';
import { runLoad } from './load-runner.js';
import type { Origins } from './origins.js';
import { peers, startPeer, weirPeer, type RunningPeer } from './peers.js';
import { treeCpuTicks } from './proc-stats.js';

export interface HopSettings {
  readonly sourceBytes: number;
  readonly rateWorkers: number;
  readonly rateMs: number;
  readonly warmupMs: number;
  readonly rateWarmupMs: number;
}

export interface HopResult {
  readonly comparisons: Comparison[];
  readonly notes: string[];
}

export const DIRECT = 'microsocks-direct';
export const VIA = 'weir→microsocks';

/** What the client connects to, and every process the measured path runs in. */
interface Path {
  readonly side: string;
  readonly port: number;
  readonly pids: readonly number[];
}

/** Waits (at most 5 s) until the path's processes together use under 10% of a core, as measure.ts does for one. */
async function quiet(pids: readonly number[]): Promise<void> {
  const deadline = Date.now() + 5000;
  const ticks = (): number => pids.reduce((sum, pid) => sum + treeCpuTicks(pid), 0);
  let last = ticks();
  while (Date.now() < deadline) {
    await sleep(200);
    const now = ticks();
    if (now - last <= 2) return;
    last = now;
  }
}

async function gbitPerSecond(path: Path, origins: Origins, s: HopSettings): Promise<number> {
  const job = { kind: 'throughput', proxyPort: path.port, targetPort: origins.sourcePort, expectBytes: s.sourceBytes, timeoutMs: 60_000 } as const;
  const result = await runLoad(job, 70_000);
  if (result.kind !== 'throughput') throw new Error(`unexpected ${result.kind} result`);
  return result.bitsPerSecond / 1e9;
}

async function connectionsPerSecond(path: Path, origins: Origins, durationMs: number, s: HopSettings, notes: string[]): Promise<number> {
  const job = { kind: 'rate', proxyPort: path.port, targetPort: origins.echoOncePort, workers: s.rateWorkers, durationMs } as const;
  const result = await runLoad(job, durationMs + 30_000);
  if (result.kind !== 'rate') throw new Error(`unexpected ${result.kind} result`);
  if (result.failed > 0) notes.push(`${path.side} rate: ${result.failed} cycles failed beside ${result.completed} completed`);
  return result.perSecond;
}

async function measurePath(path: Path, origins: Origins, s: HopSettings, out: [Comparison, Comparison], notes: string[]): Promise<string> {
  const [throughput, rate] = out;
  await connectionsPerSecond(path, origins, s.warmupMs, s, []);
  await quiet(path.pids);
  const gbit = await gbitPerSecond(path, origins, s);
  record(throughput, path.side, gbit);
  await quiet(path.pids);
  await connectionsPerSecond(path, origins, s.rateWarmupMs, s, []);
  await quiet(path.pids);
  const perSecond = await connectionsPerSecond(path, origins, s.rateMs, s, notes);
  record(rate, path.side, perSecond);
  return `${path.side} ${gbit.toFixed(2)} Gbit/s, ${perSecond.toFixed(0)} conn/s`;
}

/**
 * Each round starts a fresh microsocks and a weir whose only outbound is a socks hop to
 * it, then measures both paths in an order that alternates by round. Throughput and
 * short-connection rate use the same load client and origins as the proxy part.
 */
export async function benchHop(repoRoot: string, tmp: string, origins: Origins, s: HopSettings, rounds: number): Promise<HopResult> {
  const throughput: Comparison = { label: 'one SOCKS5 hop: single-stream throughput', unit: 'Gbit/s', digits: 2, baseline: DIRECT, samples: { [DIRECT]: [], [VIA]: [] } };
  const rate: Comparison = { label: 'one SOCKS5 hop: short connections, 50 concurrent', unit: 'conn/s', digits: 0, baseline: DIRECT, samples: { [DIRECT]: [], [VIA]: [] } };
  const notes: string[] = [];
  const microsocks = peers(repoRoot).find((p) => p.name === 'microsocks');
  const weir = weirPeer(repoRoot);
  const missing = microsocks?.missing ?? weir.missing;
  if (!microsocks || missing) {
    const note = `hop: skipped, ${missing ?? 'no microsocks peer'}`;
    console.log(note);
    return { comparisons: [throughput, rate], notes: [note] };
  }
  for (let round = 0; round < rounds; round += 1) {
    const label = `hop round ${round + 1}/${rounds}`;
    const started: RunningPeer[] = [];
    try {
      const hop = await startPeer(microsocks, tmp, 15_000);
      started.push(hop);
      const via = await startPeer(weirPeer(repoRoot, hop.port), tmp, 15_000);
      started.push(via);
      const paths: Path[] = [
        { side: DIRECT, port: hop.port, pids: [hop.pid] },
        { side: VIA, port: via.port, pids: [via.pid, hop.pid] },
      ];
      const lines: string[] = [];
      for (const path of round % 2 === 0 ? paths : [...paths].reverse()) {
        lines.push(await measurePath(path, origins, s, [throughput, rate], notes));
      }
      console.log(`${label}: ${lines.join('; ')}`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      notes.push(`${label}: ${message}`);
      console.log(`${label}: failed: ${message}`);
    } finally {
      for (const p of started.reverse()) await p.stop();
    }
  }
  return { comparisons: [throughput, rate], notes };
}
