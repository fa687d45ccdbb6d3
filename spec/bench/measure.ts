import { setTimeout as sleep } from 'node:timers/promises';
import { runLoad } from './load-runner.js';
import type { Origins } from './origins.js';
import type { RunningPeer } from './peers.js';
import { treeCpuTicks, treeRssKiB } from './proc-stats.js';
import type { Metric } from './report.js';

export interface Settings {
  /** Bytes the source sends per throughput stream. */
  readonly sourceBytes: number;
  readonly rateWorkers: number;
  readonly rateMs: number;
  /** Short-connection load before the memory baseline, so code paths and worker pools exist. */
  readonly warmupMs: number;
  /**
   * The rate load, unmeasured, right before the measured one: the rate is a steady-state
   * figure, and a JIT-compiled proxy reaches it only after some thousands of connections.
   */
  readonly rateWarmupMs: number;
  readonly idleCount: number;
  /** Tunnels opened at once while building up idleCount. */
  readonly idleConcurrency: number;
}

export interface PeerRound {
  readonly values: Partial<Record<Metric, number>>;
  readonly notes: string[];
}

/**
 * Waits (at most 5 s) until the proxy uses under 10% of a core, so one measurement does not
 * start while the proxy still tears down the connections of the last.
 */
async function quiet(pid: number): Promise<void> {
  const deadline = Date.now() + 5000;
  let ticks = treeCpuTicks(pid);
  while (Date.now() < deadline) {
    await sleep(200);
    const now = treeCpuTicks(pid);
    // Clock ticks are 10 ms; 2 ticks in 200 ms is 10%.
    if (now - ticks <= 2) return;
    ticks = now;
  }
}

async function idleKiB(peer: RunningPeer, origins: Origins, s: Settings, notes: string[]): Promise<number> {
  const before = treeRssKiB(peer.pid);
  let after = 0;
  const job = { kind: 'idle', proxyPort: peer.port, targetPort: origins.echoPort, count: s.idleCount, concurrency: s.idleConcurrency } as const;
  const held = await runLoad(job, 120_000, async () => {
    await quiet(peer.pid);
    after = treeRssKiB(peer.pid);
    origins.closeEchoes();
  });
  if (held.kind !== 'idle' || held.opened === 0) throw new Error('no idle tunnel could be opened');
  if (held.opened < s.idleCount) notes.push(`idle: ${held.opened} of ${s.idleCount} tunnels held (${held.failed} failed)`);
  return (after - before) / held.opened;
}

async function gbitPerSecond(peer: RunningPeer, origins: Origins, s: Settings): Promise<number> {
  const job = { kind: 'throughput', proxyPort: peer.port, targetPort: origins.sourcePort, expectBytes: s.sourceBytes, timeoutMs: 60_000 } as const;
  const result = await runLoad(job, 70_000);
  if (result.kind !== 'throughput') throw new Error(`unexpected ${result.kind} result`);
  return result.bitsPerSecond / 1e9;
}

/** Connections per second, and the proxy's CPU µs per connection (clock ticks are 10 ms: 10,000 µs). */
async function connectionsPerSecond(
  peer: RunningPeer,
  origins: Origins,
  durationMs: number,
  s: Settings,
  notes: string[],
): Promise<{ perSecond: number; cpuUs: number }> {
  const job = { kind: 'rate', proxyPort: peer.port, targetPort: origins.echoOncePort, workers: s.rateWorkers, durationMs } as const;
  const ticks = treeCpuTicks(peer.pid);
  const result = await runLoad(job, durationMs + 30_000);
  if (result.kind !== 'rate') throw new Error(`unexpected ${result.kind} result`);
  if (result.failed > 0) notes.push(`rate: ${result.failed} cycles failed beside ${result.completed} completed`);
  return { perSecond: result.perSecond, cpuUs: ((treeCpuTicks(peer.pid) - ticks) * 10_000) / Math.max(1, result.completed) };
}

/** Memory first (right after a warm-up, before heavy traffic grows the heap), then throughput, then rate. */
export async function measurePeer(peer: RunningPeer, origins: Origins, s: Settings): Promise<PeerRound> {
  const values: Partial<Record<Metric, number>> = {};
  const notes: string[] = [];
  const attempt = async (metric: Metric, f: () => Promise<number>): Promise<void> => {
    try {
      await quiet(peer.pid);
      values[metric] = await f();
    } catch (error) {
      notes.push(`${metric}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  await connectionsPerSecond(peer, origins, s.warmupMs, s, []);
  await attempt('idle', () => idleKiB(peer, origins, s, notes));
  await attempt('throughput', () => gbitPerSecond(peer, origins, s));
  await attempt('rate', async () => {
    await connectionsPerSecond(peer, origins, s.rateWarmupMs, s, []);
    await quiet(peer.pid);
    const { perSecond, cpuUs } = await connectionsPerSecond(peer, origins, s.rateMs, s, notes);
    values.rate_cpu = cpuUs;
    return perSecond;
  });
  return { values, notes };
}
