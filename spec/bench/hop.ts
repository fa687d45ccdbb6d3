// Issue 4: weir chaining through one SOCKS5 hop (microsocks) beside the same client going through microsocks directly.
import { record, type Comparison } from './compare.js';
import { peers, startPeer, weirPeer, type RunningPeer } from './peers.js';
import { failedCycles, quiet, rateRun, steadyRate, stream, type Load, type RateSettings, type Target } from './proxy-steps.js';

export interface HopSettings extends RateSettings {
  readonly streamBytes: number;
  readonly warmupMs: number;
}

export interface HopResult {
  readonly comparisons: Comparison[];
  readonly notes: string[];
}

export const DIRECT = 'microsocks-direct';
export const VIA = 'weir→microsocks';

/** What the client connects to, and every process the measured path runs in. */
interface Path extends Target {
  readonly side: string;
}

async function measurePath(path: Path, l: Load, s: HopSettings, out: [Comparison, Comparison], notes: string[]): Promise<string> {
  const [throughput, rate] = out;
  await rateRun(path, l, s.rateWorkers, s.warmupMs);
  await quiet(path);
  const { gbit } = await stream(path, l, s.streamBytes);
  record(throughput, path.side, gbit);
  const measured = await steadyRate(path, l, s);
  const failed = failedCycles(measured, `${path.side} `);
  if (failed) notes.push(failed);
  record(rate, path.side, measured.perSecond);
  return `${path.side} ${gbit.toFixed(2)} Gbit/s, ${measured.perSecond.toFixed(0)} conn/s`;
}

const through = (p: RunningPeer, side: string, pids: number[]): Path => ({ side, proto: p.proto, ports: p.ports, pids });

/**
 * Each round starts a fresh microsocks and a weir whose only outbound is a socks hop to
 * it, then measures both paths in an order that alternates by round. Throughput and
 * short-connection rate use the same load client and origin as the proxy part.
 */
export async function benchHop(repoRoot: string, tmp: string, l: Load, s: HopSettings, rounds: number): Promise<HopResult> {
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
      const hop = await startPeer(microsocks, tmp, l.origins, 15_000);
      started.push(hop);
      const via = await startPeer(weirPeer(repoRoot, { hopPort: hop.ports.sink }), tmp, l.origins, 15_000);
      started.push(via);
      const paths: Path[] = [through(hop, DIRECT, [hop.pid]), through(via, VIA, [via.pid, hop.pid])];
      const lines: string[] = [];
      for (const path of round % 2 === 0 ? paths : [...paths].reverse()) {
        lines.push(await measurePath(path, l, s, [throughput, rate], notes));
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
