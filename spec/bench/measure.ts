import { runLoad } from './load-runner.js';
import { loadRound, type LoadRound } from './load-share.js';
import type { RunningPeer } from './peers.js';
import { treeRssKiB, type ThreadShare } from './proc-stats.js';
import { failedCycles, idleJob, quiet, rateRun, steadyRate, stream, type Load, type RateSettings, type Target } from './proxy-steps.js';
import type { LoadGroup, Metric } from './report.js';

export interface Settings extends RateSettings {
  /** Bytes of the one throughput stream. */
  readonly streamBytes: number;
  /** Short-connection load before the memory baseline, so code paths and worker pools exist. */
  readonly warmupMs: number;
  readonly idleCount: number;
  /** Tunnels opened at once while building up idleCount. */
  readonly idleConcurrency: number;
}

export interface PeerRound {
  readonly values: Partial<Record<Metric, number>>;
  readonly load: Partial<Record<LoadGroup, LoadRound>>;
  readonly notes: string[];
}

export function targetOf(peer: RunningPeer): Target {
  return { proto: peer.proto, ports: peer.ports, pids: [peer.pid] };
}

async function idleKiB(peer: RunningPeer, l: Load, s: Settings, notes: string[]): Promise<number> {
  const target = targetOf(peer);
  const before = treeRssKiB(peer.pid);
  let after = 0;
  const job = idleJob(target, l, s.idleCount, s.idleConcurrency, 60_000);
  const held = await runLoad(l.binary, job, 240_000, async () => {
    await quiet(target);
    after = treeRssKiB(peer.pid);
    l.origins.closeEchoes();
  });
  if (held.held === 0) throw new Error('no idle tunnel could be opened');
  if (held.held < s.idleCount) notes.push(`idle: ${held.held} of ${s.idleCount} tunnels held (${held.failed} failed)`);
  return (after - before) / held.held;
}

/**
 * Which threads of the proxy streamed: a stream that runs on more than one core has a
 * second thread working beside the main one (GC helpers, the libuv pool), named here.
 */
function streamThreads(t: ThreadShare): string {
  const busiest = t.busiest ? ` (busiest: ${t.busiest.name} ${t.busiest.cores.toFixed(2)})` : '';
  return `stream cores: main thread ${t.main.toFixed(2)}, other threads ${t.others.toFixed(2)}${busiest}`;
}

/** Memory first (right after a warm-up, before heavy traffic grows the heap), then throughput, then rate. */
export async function measurePeer(peer: RunningPeer, l: Load, s: Settings): Promise<PeerRound> {
  const values: Partial<Record<Metric, number>> = {};
  const load: Partial<Record<LoadGroup, LoadRound>> = {};
  const notes: string[] = [];
  const target = targetOf(peer);
  const attempt = async (what: string, f: () => Promise<void>): Promise<void> => {
    try {
      await f();
    } catch (error) {
      notes.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  await rateRun(target, l, s.rateWorkers, s.warmupMs);
  await attempt('idle', async () => {
    await quiet(target);
    values.idle = await idleKiB(peer, l, s, notes);
  });
  await attempt('throughput', async () => {
    await quiet(target);
    const run = await stream(target, l, s.streamBytes);
    values.throughput = run.gbit;
    values.throughput_cpu = run.cpuSPerGiB;
    load.stream = loadRound(run.load, 1);
    notes.push(streamThreads(run.threads));
  });
  await attempt('four streams', async () => {
    await quiet(target);
    values.throughput4 = (await stream(target, l, s.streamBytes, 4)).gbit;
  });
  await attempt('rate', async () => {
    const rate = await steadyRate(target, l, s);
    const failed = failedCycles(rate, '');
    if (failed) notes.push(failed);
    values.rate = rate.perSecond;
    values.rate_cpu = rate.cpuUs;
    values.p99 = rate.p99Ms;
    load.rate = loadRound(rate.load, 1e6);
  });
  return { values, load, notes };
}
