// The load steps the proxy part (measure.ts), the hop part (hop.ts), ab.ts and limits.ts take
// against a proxy, with the processes that serve it, driven by the native load client.
import { setTimeout as sleep } from 'node:timers/promises';
import type { LoadJob, Proto } from './load-job.js';
import { runLoad } from './load-runner.js';
import type { LoadCost } from './load-share.js';
import type { Origins } from './origins.js';
import type { OriginPort } from './peers.js';
import { threadShare, treeCpuTicks, treeThreadTicks, type ThreadShare } from './proc-stats.js';

/** What is measured: how the client reaches each origin port, and every process behind it. */
export interface Target {
  readonly proto: Proto;
  readonly ports: Readonly<Record<OriginPort, number>>;
  readonly pids: readonly number[];
}

/** The native load client and the origin every step uses. */
export interface Load {
  readonly binary: string;
  readonly origins: Origins;
}

export interface RateSettings {
  readonly rateWorkers: number;
  readonly rateMs: number;
  /**
   * The rate load, unmeasured, right before the measured one: the rate is a steady-state
   * figure, and a JIT-compiled proxy reaches it only after some thousands of connections.
   */
  readonly rateWarmupMs: number;
}

export interface StreamRun {
  readonly gbit: number;
  /** CPU seconds of the target's processes (all threads) per GiB streamed. */
  readonly cpuSPerGiB: number;
  readonly load: LoadCost;
  /** How the proxy's CPU over the stream fell on its threads (the first target process's tree). */
  readonly threads: ThreadShare;
}

export interface RateRun {
  readonly perSecond: number;
  /** CPU of the target's processes (all threads) per completed connection, in µs. */
  readonly cpuUs: number;
  readonly p99Ms: number;
  readonly completed: number;
  readonly failed: number;
  readonly load: LoadCost;
}

const GIB = 2 ** 30;
/** Clock ticks per second in /proc/<pid>/stat (USER_HZ). */
const TICKS = 100;

const cpuTicks = (t: Target): number => t.pids.reduce((sum, pid) => sum + treeCpuTicks(pid), 0);

/** Target and origin CPU (in seconds) over f. */
async function clocked<R>(t: Target, l: Load, f: () => Promise<R>): Promise<{ result: R; proxyS: number; originS: number }> {
  const proxy = cpuTicks(t);
  const origin = l.origins.cpuTicks();
  const result = await f();
  return { result, proxyS: (cpuTicks(t) - proxy) / TICKS, originS: (l.origins.cpuTicks() - origin) / TICKS };
}

/**
 * Waits (at most 5 s) until the target's processes together use under 10% of a core, so
 * one measurement does not start while they still tear down the connections of the last.
 */
export async function quiet(t: Target): Promise<void> {
  const deadline = Date.now() + 5000;
  let last = cpuTicks(t);
  while (Date.now() < deadline) {
    await sleep(200);
    const now = cpuTicks(t);
    // Clock ticks are 10 ms; 2 ticks in 200 ms is 10%.
    if (now - last <= 2) return;
    last = now;
  }
}

const loopback = (port: number): { host: string; port: number } => ({ host: '127.0.0.1', port });

/** `count` quiet tunnels through the target to the origin's echo port, `concurrency` opening at once, held up to `holdMs`. */
export function idleJob(t: Target, l: Load, count: number, concurrency: number, holdMs: number): Extract<LoadJob, { kind: 'idle' }> {
  return { kind: 'idle', port: t.ports.echo, proto: t.proto, target: loopback(l.origins.echoPort), count, concurrency, holdMs };
}

/** `bytes` in 1 MiB writes through the target to the origin's sink, over `streams` parallel connections. */
export async function stream(t: Target, l: Load, bytes: number, streams = 1): Promise<StreamRun> {
  const each = Math.floor(bytes / streams);
  bytes = each * streams;
  const job = { kind: 'stream', port: t.ports.sink, proto: t.proto, target: loopback(l.origins.sinkPort), bytes: each, streams } as const;
  const root = t.pids[0] as number;
  const threadsBefore = treeThreadTicks(root);
  const { result, proxyS, originS } = await clocked(t, l, () => runLoad(l.binary, job, 150_000));
  const threads = threadShare(root, threadsBefore, treeThreadTicks(root), result.seconds, TICKS);
  const gib = bytes / GIB;
  return {
    gbit: (bytes * 8) / result.seconds / 1e9,
    cpuSPerGiB: proxyS / gib,
    load: { clientCpuS: result.cpuUs / 1e6, originCpuS: originS, seconds: result.seconds, units: gib },
    threads,
  };
}

/** Short connections (connect, handshake, 16-byte echo, the origin's close) from `workers` at a time for `durationMs`. */
export async function rateRun(t: Target, l: Load, workers: number, durationMs: number): Promise<RateRun> {
  const job = { kind: 'rate', port: t.ports.echoOnce, proto: t.proto, target: loopback(l.origins.echoOncePort), concurrency: workers, ms: durationMs } as const;
  const { result, proxyS, originS } = await clocked(t, l, () => runLoad(l.binary, job, durationMs + 30_000));
  const completed = Math.max(1, result.completed);
  return {
    perSecond: result.completed / result.seconds,
    cpuUs: (proxyS * 1e6) / completed,
    p99Ms: result.latencyUs.p99 / 1000,
    completed: result.completed,
    failed: result.failed,
    load: { clientCpuS: result.cpuUs / 1e6, originCpuS: originS, seconds: result.seconds, units: completed },
  };
}

/** The measured rate after the unmeasured warm-up, each started on a quiet target. */
export async function steadyRate(t: Target, l: Load, s: RateSettings): Promise<RateRun> {
  await quiet(t);
  await rateRun(t, l, s.rateWorkers, s.rateWarmupMs);
  await quiet(t);
  return rateRun(t, l, s.rateWorkers, s.rateMs);
}

/** A note for cycles that failed in a rate run, or null when none did. */
export function failedCycles(r: RateRun, prefix: string): string | null {
  return r.failed > 0 ? `${prefix}rate: ${r.failed} cycles failed beside ${r.completed} completed` : null;
}
