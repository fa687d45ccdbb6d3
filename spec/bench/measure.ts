import { runLoad } from './load-runner.js';
import type { Origins } from './origins.js';
import type { RunningPeer } from './peers.js';
import { treeRssKiB } from './proc-stats.js';
import { failedCycles, gbitPerSecond, quiet, rateRun, steadyRate, type RateSettings, type Target } from './proxy-steps.js';
import type { Metric } from './report.js';

export interface Settings extends RateSettings {
  /** Bytes the source sends per throughput stream. */
  readonly sourceBytes: number;
  /** Short-connection load before the memory baseline, so code paths and worker pools exist. */
  readonly warmupMs: number;
  readonly idleCount: number;
  /** Tunnels opened at once while building up idleCount. */
  readonly idleConcurrency: number;
}

export interface PeerRound {
  readonly values: Partial<Record<Metric, number>>;
  readonly notes: string[];
}

async function idleKiB(peer: RunningPeer, target: Target, origins: Origins, s: Settings, notes: string[]): Promise<number> {
  const before = treeRssKiB(peer.pid);
  let after = 0;
  const job = { kind: 'idle', proxyPort: peer.port, targetPort: origins.echoPort, count: s.idleCount, concurrency: s.idleConcurrency } as const;
  const held = await runLoad(job, 120_000, async () => {
    await quiet(target);
    after = treeRssKiB(peer.pid);
    origins.closeEchoes();
  });
  if (held.kind !== 'idle' || held.opened === 0) throw new Error('no idle tunnel could be opened');
  if (held.opened < s.idleCount) notes.push(`idle: ${held.opened} of ${s.idleCount} tunnels held (${held.failed} failed)`);
  return (after - before) / held.opened;
}

/** Memory first (right after a warm-up, before heavy traffic grows the heap), then throughput, then rate. */
export async function measurePeer(peer: RunningPeer, origins: Origins, s: Settings): Promise<PeerRound> {
  const values: Partial<Record<Metric, number>> = {};
  const notes: string[] = [];
  const target: Target = { port: peer.port, pids: [peer.pid] };
  const attempt = async (metric: Metric, f: () => Promise<number>): Promise<void> => {
    try {
      values[metric] = await f();
    } catch (error) {
      notes.push(`${metric}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  await rateRun(target, origins, s.rateWorkers, s.warmupMs);
  await attempt('idle', async () => {
    await quiet(target);
    return idleKiB(peer, target, origins, s, notes);
  });
  await attempt('throughput', async () => {
    await quiet(target);
    return gbitPerSecond(target, origins, s.sourceBytes);
  });
  await attempt('rate', async () => {
    const rate = await steadyRate(target, origins, s);
    const failed = failedCycles(rate, '');
    if (failed) notes.push(failed);
    values.rate_cpu = rate.cpuUs;
    return rate.perSecond;
  });
  return { values, notes };
}
