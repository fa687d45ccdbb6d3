import { num, type ReportRow } from '../bench/fleet-report.js';
import type { SinkView } from '../support/webhook-node.js';
import type { ReceivedRequest } from '../support/webhook-receiver.js';
import type { Level } from './level.js';
import type { LoadTotals } from './mixed-load.js';
import type { SlowSseFigures } from './slow-sse-reader.js';
import type { ArchiveRead, Verdict } from './soak-oracle.js';

export interface Faults {
  nodeRestartMs: number[];
  redisKills: number;
  /** Worker processes killed with kill -9 (SOAK_WORKERS above 1). */
  workerKills: number;
  workers: number;
  redisStalls: number;
  reloadedAtS: number | null;
}

/** What one soak measured, for its table. */
export interface SoakMeasurements {
  readonly soakS: number;
  readonly loadSeconds: number;
  readonly burstMs: number;
  readonly restMs: number;
  readonly totals: LoadTotals;
  readonly faults: Faults;
  readonly redisDownMs: number;
  readonly redisStallMs: number;
  readonly requests: readonly ReceivedRequest[];
  readonly archive: ArchiveRead & { readonly files: number };
  readonly verdict: Verdict;
  /** The sink after the drain; undefined when the node did not answer. */
  readonly view: SinkView | undefined;
  /** total_delivered as `weir connector state` read it after the stop. */
  readonly offlineDelivered: number | null;
  readonly settleS: number;
  readonly sse: SlowSseFigures;
  readonly rss: Level;
  readonly fds: Level;
  /** Whether the run was long enough for the levels to count in the verdict. */
  readonly levelJudged: boolean;
  readonly failures: readonly string[];
}

/** The receiver's answers by status, `unanswered` for those the sink gave up on first. */
function statusCounts(requests: readonly ReceivedRequest[]): string {
  const counts = new Map<string, number>();
  for (const r of requests) {
    const key = r.status === null ? 'unanswered' : String(r.status);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, v]) => `${k}: ${num(v)}`).join(', ');
}

function levelRow(figure: string, unit: string, l: Level, judged: boolean): ReportRow {
  const verdict = !judged ? ' (not judged: SOAK_S under 300)' : l.grows ? ': GROWS' : '';
  return {
    figure,
    value: `${num(l.slopePerMinute, 1)} ${unit}/min`,
    note: `floor from the start to the end of the last half ${num(l.first)} → ${num(l.last)} ${unit} (${num(l.riseShare * 100, 1)}%)${verdict}`,
  };
}

export function soakRows(m: SoakMeasurements): ReportRow[] {
  const gapsShown = (m.view?.gaps ?? []).map((g) => `${g.from_sequence}..${g.to_sequence}`).join(', ');
  return [
    { figure: 'soak', value: `${num(m.loadSeconds)} s`, note: `SOAK_S=${m.soakS}, bursts of ${m.burstMs} ms every ${m.burstMs + m.restMs} ms` },
    { figure: 'flows through SOCKS5 (user/password)', value: num(m.totals.socks), note: 'short echo connections that completed' },
    { figure: 'flows through HTTP CONNECT', value: num(m.totals.http), note: '' },
    { figure: 'failed connections', value: num(m.totals.failed), note: `to a closed port, and those refused while the node restarted; ${m.totals.clientErrors} client runs gave no result` },
    { figure: 'node kill -9 + restart', value: String(m.faults.nodeRestartMs.length), note: `restart to control plane in ${m.faults.nodeRestartMs.map((ms) => `${num(ms)} ms`).join(', ')}` },
    { figure: 'worker kill -9', value: String(m.faults.workerKills), note: `node.workers ${m.faults.workers}: the hub restarts it and completes its open flows as failed (WORKER_EXITED)` },
    { figure: 'Redis SIGKILL + restart', value: String(m.faults.redisKills), note: `down ${m.redisDownMs / 1000} s each` },
    { figure: 'Redis SIGSTOP + SIGCONT', value: String(m.faults.redisStalls), note: `hung ${m.redisStallMs / 1000} s with its connections open` },
    { figure: 'config reload (SIGHUP)', value: m.faults.reloadedAtS === null ? '-' : `at ${num(m.faults.reloadedAtS)} s`, note: 'batch_size changed: the Webhook sink replaced under load' },
    { figure: 'receiver requests', value: num(m.requests.length), note: statusCounts(m.requests) },
    { figure: 'archive lines', value: num(m.archive.lines), note: `${num(m.archive.torn)} torn, in ${m.archive.files} files (rotated at 64 MiB)` },
    { figure: 'flow.completed archived', value: num(m.verdict.completed), note: '' },
    { figure: 'acknowledged (distinct event_id)', value: num(m.verdict.acknowledgedDistinct), note: `${num(m.verdict.notArchived)} of them not in the archive (its own loss window at a kill -9)` },
    { figure: 'duplicates at the receiver', value: num(m.verdict.duplicates), note: 'acknowledgements beyond the first of an event_id' },
    { figure: 'archived, not acked, in a gap', value: num(m.verdict.inGap), note: `replay_gaps ${m.view?.replay_gaps ?? '-'}: ${gapsShown || 'none'}` },
    { figure: 'archived, not acked, no gap', value: num(m.verdict.missing.length), note: 'must be 0' },
    {
      figure: 'total_delivered',
      value: num(m.view?.total_delivered ?? null),
      note: `excess over distinct acks ${num(m.verdict.deliveredExcess)} (must be 0); weir connector state after the stop: ${num(m.offlineDelivered)}`,
    },
    { figure: 'dead letters', value: num(m.view?.dead_letters ?? null), note: '' },
    { figure: 'drain after the load', value: `${num(m.settleS, 1)} s`, note: 'until pending 0 three reads running' },
    {
      figure: 'slow SSE consumer',
      value: `${num(m.sse.frames)} frames`,
      note: `${m.sse.connections} streams, ${m.sse.slowConsumerCuts} ended on SLOW_CONSUMER, ${m.sse.cutMidFrame} mid-frame (a kill -9 may cut one)`,
    },
    levelRow('node RSS', 'KiB', m.rss, m.levelJudged),
    levelRow('node open files', 'fds', m.fds, m.levelJudged),
    { figure: 'verdict', value: m.failures.length === 0 ? 'PASS' : 'FAIL', note: m.failures.join('; ') },
  ];
}
