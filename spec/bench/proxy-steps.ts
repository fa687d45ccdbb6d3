// The load steps the proxy part (measure.ts) and the hop part (hop.ts) both take
// against a SOCKS5 port, with the processes that serve it.
import { setTimeout as sleep } from 'node:timers/promises';
import { runLoad } from './load-runner.js';
import type { Origins } from './origins.js';
import { treeCpuTicks } from './proc-stats.js';

/** What a SOCKS5 port is measured through: the port and every process behind it. */
export interface Target {
  readonly port: number;
  readonly pids: readonly number[];
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

export interface RateResult {
  readonly perSecond: number;
  /** CPU of the target's processes (all threads) per completed connection, in µs. */
  readonly cpuUs: number;
  readonly completed: number;
  readonly failed: number;
}

const cpuTicks = (t: Target): number => t.pids.reduce((sum, pid) => sum + treeCpuTicks(pid), 0);

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

export async function gbitPerSecond(t: Target, origins: Origins, sourceBytes: number): Promise<number> {
  const job = { kind: 'throughput', proxyPort: t.port, targetPort: origins.sourcePort, expectBytes: sourceBytes, timeoutMs: 60_000 } as const;
  const result = await runLoad(job, 70_000);
  if (result.kind !== 'throughput') throw new Error(`unexpected ${result.kind} result`);
  return result.bitsPerSecond / 1e9;
}

/** Short connections (connect, 16-byte echo, close) from `workers` concurrent workers for `durationMs`. */
export async function rateRun(t: Target, origins: Origins, workers: number, durationMs: number): Promise<RateResult> {
  const job = { kind: 'rate', proxyPort: t.port, targetPort: origins.echoOncePort, workers, durationMs } as const;
  const ticks = cpuTicks(t);
  const result = await runLoad(job, durationMs + 30_000);
  if (result.kind !== 'rate') throw new Error(`unexpected ${result.kind} result`);
  // Clock ticks are 10 ms: 10,000 µs.
  const cpuUs = ((cpuTicks(t) - ticks) * 10_000) / Math.max(1, result.completed);
  return { perSecond: result.perSecond, cpuUs, completed: result.completed, failed: result.failed };
}

/** The measured rate after the unmeasured warm-up, each started on a quiet target. */
export async function steadyRate(t: Target, origins: Origins, s: RateSettings): Promise<RateResult> {
  await quiet(t);
  await rateRun(t, origins, s.rateWorkers, s.rateWarmupMs);
  await quiet(t);
  return rateRun(t, origins, s.rateWorkers, s.rateMs);
}

/** A note for cycles that failed in a rate run, or null when none did. */
export function failedCycles(r: RateResult, prefix: string): string | null {
  return r.failed > 0 ? `${prefix}rate: ${r.failed} cycles failed beside ${r.completed} completed` : null;
}
