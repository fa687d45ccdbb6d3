import { percentile } from './fleet-arrivals.js';

/** One request of the operator's probe: its latency to the last byte of the answer, or why it failed. */
export type ProbeSample = { readonly ms: number; readonly bytes: number } | { readonly failed: string };

export interface ProbeSummary {
  readonly name: string;
  readonly requests: number;
  readonly failed: number;
  /** The first failure's reason, or null. */
  readonly firstFailure: string | null;
  readonly p50Ms: number | null;
  readonly p99Ms: number | null;
  readonly maxMs: number | null;
  /** The largest answer, in bytes. */
  readonly maxBytes: number;
  /** The p99 is under the budget and no request failed. */
  readonly met: boolean;
}

/** Percentiles and the verdict against budgetMs of one probe's samples. */
export function summarizeProbe(name: string, samples: readonly ProbeSample[], budgetMs: number): ProbeSummary {
  const answered = samples.filter((s): s is { ms: number; bytes: number } => 'ms' in s);
  const failures = samples.filter((s): s is { failed: string } => 'failed' in s);
  const ms = answered.map((s) => s.ms);
  const p99Ms = percentile(ms, 99);
  return {
    name,
    requests: samples.length,
    failed: failures.length,
    firstFailure: failures[0]?.failed ?? null,
    p50Ms: percentile(ms, 50),
    p99Ms,
    maxMs: percentile(ms, 100),
    maxBytes: answered.reduce((max, s) => Math.max(max, s.bytes), 0),
    met: failures.length === 0 && p99Ms !== null && p99Ms < budgetMs,
  };
}

const fixed = (n: number | null): string => (n === null ? '-' : n.toFixed(1));

/** One line: `health: 300 requests, 0 failed, p50 1.2 ms, p99 4.0 ms, max 9.1 ms, answers up to 120 B: met (p99 < 100 ms)`. */
export function formatProbe(s: ProbeSummary, budgetMs: number): string {
  const failed = s.failed > 0 ? ` (first: ${s.firstFailure})` : '';
  const verdict = s.met ? `met (p99 < ${budgetMs} ms)` : `MISSED (p99 < ${budgetMs} ms and no failure)`;
  return `${s.name}: ${s.requests} requests, ${s.failed} failed${failed}, p50 ${fixed(s.p50Ms)} ms, p99 ${fixed(s.p99Ms)} ms, max ${fixed(s.maxMs)} ms, answers up to ${s.maxBytes} B: ${verdict}`;
}
