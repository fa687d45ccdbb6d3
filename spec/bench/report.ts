import fs from 'node:fs';
import path from 'node:path';
import { PEER_NAMES, type PeerName } from './peers.js';

interface MetricSpec {
  readonly label: string;
  readonly unit: string;
  readonly digits: number;
  readonly better: 'higher' | 'lower';
  /** The ratio to the raw relay weir must reach; null: shown, not judged. */
  readonly target: number | null;
}

export const METRICS = {
  throughput: { label: 'single-stream throughput', unit: 'Gbit/s', digits: 2, better: 'higher', target: 0.9 },
  rate: { label: 'short connections, 50 concurrent', unit: 'conn/s', digits: 0, better: 'higher', target: 0.8 },
  // The proxy's own CPU (all its threads) per connection of the measured rate run: the
  // rate also moves with what the load client and origin spend on the same two cores.
  rate_cpu: { label: 'proxy CPU per short connection', unit: 'µs', digits: 0, better: 'lower', target: null },
  idle: { label: 'RSS per idle tunnel', unit: 'KiB', digits: 1, better: 'lower', target: 2 },
} as const satisfies Record<string, MetricSpec>;
export type Metric = keyof typeof METRICS;

/**
 * Measured values per metric and peer, in the metric's unit, indexed by round: a round
 * in which a peer failed leaves a hole, so the peers' values of one round stay paired.
 */
export type Samples = Record<Metric, Partial<Record<PeerName, (number | undefined)[]>>>;

/** The peer every ratio is taken against: the raw Node socket.pipe relay. */
export const BASELINE: PeerName = 'node-pipe';

export interface PeerSummary {
  readonly samples: number[];
  readonly median: number;
  /** median / the baseline's median; null without a baseline. */
  readonly ratio: number | null;
  /**
   * Median of the per-round ratios to the baseline measured in the same round; null
   * without a round both have. Each round measures the peers back to back, so a slow
   * spell of the shared machine weighs on both sides of a pair: on this kind of VM the
   * same peer varies up to 1.4× between rounds, far more than within one.
   */
  readonly paired: number | null;
}

export interface MetricSummary {
  readonly label: string;
  readonly unit: string;
  readonly peers: Partial<Record<PeerName, PeerSummary>>;
  readonly weir: { readonly target: string; readonly pass: boolean } | null;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function summarize(samples: Samples): Record<Metric, MetricSummary> {
  const out = {} as Record<Metric, MetricSummary>;
  for (const metric of Object.keys(METRICS) as Metric[]) {
    const spec = METRICS[metric];
    const base = samples[metric][BASELINE] ?? [];
    const baseValues = measured(base);
    const baseMedian = baseValues.length > 0 ? median(baseValues) : null;
    const peers: Partial<Record<PeerName, PeerSummary>> = {};
    for (const name of PEER_NAMES) {
      const rounds = samples[metric][name] ?? [];
      const values = measured(rounds);
      if (values.length === 0) continue;
      const m = median(values);
      const pairs = measured(rounds.map((v, i) => (v === undefined || base[i] === undefined ? undefined : v / base[i])));
      peers[name] = {
        samples: values,
        median: m,
        ratio: baseMedian ? m / baseMedian : null,
        paired: pairs.length > 0 ? median(pairs) : null,
      };
    }
    const ratio = peers.weir ? (peers.weir.paired ?? peers.weir.ratio) : null;
    const target: number | null = spec.target;
    const higher = spec.better === 'higher';
    out[metric] = {
      label: spec.label,
      unit: spec.unit,
      peers,
      weir:
        ratio === null || target === null
          ? null
          : { target: `${higher ? '≥' : '≤'}${target}×`, pass: higher ? ratio >= target : ratio <= target },
    };
  }
  return out;
}

function measured(rounds: readonly (number | undefined)[]): number[] {
  return rounds.filter((v): v is number => v !== undefined);
}

function pad(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
}

export function formatTable(summary: Record<Metric, MetricSummary>): string {
  const rows: string[][] = [['metric', 'peer', 'median', 'min–max', 'runs', `× ${BASELINE}`, 'paired ×', 'target', 'verdict']];
  for (const metric of Object.keys(METRICS) as Metric[]) {
    const s = summary[metric];
    let first = true;
    for (const [name, p] of Object.entries(s.peers) as [PeerName, PeerSummary][]) {
      const verdict = name === 'weir' && s.weir ? [s.weir.target, s.weir.pass ? 'PASS' : 'MISS'] : ['', ''];
      const fixed = (v: number): string => v.toFixed(METRICS[metric].digits);
      rows.push([
        first ? `${s.label} (${s.unit})` : '',
        name,
        fixed(p.median),
        `${fixed(Math.min(...p.samples))}–${fixed(Math.max(...p.samples))}`,
        String(p.samples.length),
        p.ratio === null ? '-' : `${p.ratio.toFixed(2)}×`,
        p.paired === null ? '-' : `${p.paired.toFixed(2)}×`,
        ...verdict,
      ]);
      first = false;
    }
  }
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => pad(r, widths)).join('\n');
}

export function writeResults(file: string, results: object): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
}
