import fs from 'node:fs';
import path from 'node:path';
import { LOAD_SHARE_LIMIT, saturation, type LoadRound } from './load-share.js';
import { PEER_NAMES, type PeerName } from './peers.js';

/** The runs whose load side a figure shares: the stream, the short connections, or none (memory). */
export type LoadGroup = 'stream' | 'rate';

interface MetricSpec {
  readonly label: string;
  readonly unit: string;
  readonly digits: number;
  readonly better: 'higher' | 'lower';
  /** The ratio to the raw SOCKS5 relay weir must reach; null: shown, not judged. */
  readonly target: number | null;
  /** The relay the verdict pairs weir with, when not BASELINE: the same relay under bin/weir's malloc settings. */
  readonly versus?: PeerName;
  readonly load: LoadGroup | null;
}

export const METRICS = {
  // Judged against the relay under weir's malloc settings: they change a stream's cost, not the code's.
  throughput: { label: 'one stream, 1 MiB writes', unit: 'Gbit/s', digits: 2, better: 'higher', target: 0.95, load: 'stream', versus: 'node-socks5-malloc' },
  throughput4: { label: 'four parallel streams, same bytes in all', unit: 'Gbit/s', digits: 2, better: 'higher', target: null, load: null },
  // The proxy's own CPU (all its threads and children) over the stream and the rate run.
  throughput_cpu: { label: 'proxy CPU per GiB streamed', unit: 'CPU s', digits: 2, better: 'lower', target: 1.1, load: 'stream' },
  rate: { label: 'short connections, 50 concurrent', unit: 'conn/s', digits: 0, better: 'higher', target: null, load: 'rate' },
  rate_cpu: { label: 'proxy CPU per short connection', unit: 'µs', digits: 0, better: 'lower', target: 1.6, load: 'rate' },
  p99: { label: 'connect-to-echo latency, p99', unit: 'ms', digits: 1, better: 'lower', target: null, load: 'rate' },
  idle: { label: 'RSS per idle tunnel, 5,000 held', unit: 'KiB', digits: 1, better: 'lower', target: 2, load: null },
} as const satisfies Record<string, MetricSpec>;
export type Metric = keyof typeof METRICS;

/** The proxy CPU figure each load group's client and origin CPU is set against. */
const CPU_METRIC: Record<LoadGroup, Metric> = { stream: 'throughput_cpu', rate: 'rate_cpu' };

/**
 * Measured values per metric and peer, in the metric's unit, indexed by round: a round
 * in which a peer failed leaves a hole, so the peers' values of one round stay paired.
 */
export type Samples = Record<Metric, Partial<Record<PeerName, (number | undefined)[]>>>;
/** The load side of each peer's runs, per group, indexed by round like Samples. */
export type LoadSamples = Record<LoadGroup, Partial<Record<PeerName, (LoadRound | undefined)[]>>>;

export function emptySamples(): Samples {
  return { throughput: {}, throughput4: {}, throughput_cpu: {}, rate: {}, rate_cpu: {}, p99: {}, idle: {} };
}

export function emptyLoadSamples(): LoadSamples {
  return { stream: {}, rate: {} };
}

/** The peer every ratio is taken against: the raw Node SOCKS5 relay (handshake, then socket.pipe). */
export const BASELINE: PeerName = 'node-socks5';

export interface LoadSummary {
  /** Median client and origin CPU per unit over the cheapest proxy's median CPU per unit. */
  readonly client: number;
  readonly origin: number;
  /** The most of one core the client and the origin used in any round. */
  readonly clientCores: number;
  readonly originCores: number;
}

export interface PeerSummary {
  readonly samples: number[];
  readonly median: number;
  /** median / the baseline's median; null without a baseline. */
  readonly ratio: number | null;
  /**
   * Median of the per-round ratios to the baseline measured in the same round; null
   * without a round both have. Each round measures the peers back to back, so a slow
   * spell of the shared machine weighs on both sides of a pair.
   */
  readonly paired: number | null;
  readonly load: LoadSummary | null;
}

export interface Verdict {
  readonly target: string;
  /** null: no verdict, for the reasons in `why`. */
  readonly pass: boolean | null;
  readonly why: string[];
}

export interface MetricSummary {
  readonly label: string;
  readonly unit: string;
  readonly peers: Partial<Record<PeerName, PeerSummary>>;
  readonly weir: Verdict | null;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function measured<T>(rounds: readonly (T | undefined)[]): T[] {
  return rounds.filter((v): v is T => v !== undefined);
}

/** Median of the per-round ratios of `rounds` to `base`; null without a round both have. */
function pairedRatio(rounds: readonly (number | undefined)[], base: readonly (number | undefined)[]): number | null {
  const pairs = measured(rounds.map((v, i) => (v === undefined || base[i] === undefined ? undefined : v / (base[i] as number))));
  return pairs.length > 0 ? median(pairs) : null;
}

/** The lowest median of a CPU metric over all peers: the cheapest proxy's cost per unit. */
function cheapest(samples: Samples, metric: Metric): number | null {
  const medians = PEER_NAMES.map((p) => measured(samples[metric][p] ?? [])).filter((v) => v.length > 0).map(median);
  return medians.length > 0 ? Math.min(...medians) : null;
}

function summarizeLoad(rounds: readonly (LoadRound | undefined)[], cheapestCpu: number | null): LoadSummary | null {
  const runs = measured(rounds);
  if (runs.length === 0 || !cheapestCpu) return null;
  return {
    client: median(runs.map((r) => r.client)) / cheapestCpu,
    origin: median(runs.map((r) => r.origin)) / cheapestCpu,
    clientCores: Math.max(...runs.map((r) => r.clientCores)),
    originCores: Math.max(...runs.map((r) => r.originCores)),
  };
}

/** Why weir's verdict on a group's figures is refused: a round of weir or the baseline whose load side saturated a core. */
function refusals(load: LoadSamples, group: LoadGroup | null, versus: PeerName): string[] {
  if (group === null) return [];
  const why: string[] = [];
  for (const peer of ['weir', versus] as const) {
    (load[group][peer] ?? []).forEach((r, round) => {
      const saturated = r ? saturation(r) : null;
      if (saturated) why.push(`round ${round + 1} ${peer}: ${saturated}`);
    });
  }
  return why;
}

export function summarize(samples: Samples, load: LoadSamples = emptyLoadSamples()): Record<Metric, MetricSummary> {
  const out = {} as Record<Metric, MetricSummary>;
  for (const metric of Object.keys(METRICS) as Metric[]) {
    const spec: MetricSpec = METRICS[metric];
    const base = samples[metric][BASELINE] ?? [];
    const baseValues = measured(base);
    const baseMedian = baseValues.length > 0 ? median(baseValues) : null;
    const cheapestCpu = spec.load ? cheapest(samples, CPU_METRIC[spec.load]) : null;
    const peers: Partial<Record<PeerName, PeerSummary>> = {};
    for (const name of PEER_NAMES) {
      const rounds = samples[metric][name] ?? [];
      const values = measured(rounds);
      if (values.length === 0) continue;
      const m = median(values);
      peers[name] = {
        samples: values,
        median: m,
        ratio: baseMedian ? m / baseMedian : null,
        paired: pairedRatio(rounds, base),
        load: spec.load ? summarizeLoad(load[spec.load][name] ?? [], cheapestCpu) : null,
      };
    }
    const versus = spec.versus ?? BASELINE;
    const versusRounds = samples[metric][versus] ?? [];
    const versusValues = measured(versusRounds);
    const weirRounds = samples[metric].weir ?? [];
    const weirValues = measured(weirRounds);
    const ratio =
      weirValues.length === 0 || versusValues.length === 0
        ? null
        : (pairedRatio(weirRounds, versusRounds) ?? median(weirValues) / median(versusValues));
    const higher = spec.better === 'higher';
    const why = refusals(load, spec.load, versus);
    out[metric] = {
      label: spec.label,
      unit: spec.unit,
      peers,
      weir:
        ratio === null || spec.target === null
          ? null
          : {
              target: `${higher ? '≥' : '≤'}${spec.target}×${versus === BASELINE ? '' : ` ${versus}`}`,
              pass: why.length > 0 ? null : higher ? ratio >= spec.target : ratio <= spec.target,
              why,
            },
    };
  }
  return out;
}

function pad(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
}

const two = (a: number, b: number): string => `${a.toFixed(2)}/${b.toFixed(2)}`;

function verdictCells(s: MetricSummary, name: PeerName): string[] {
  if (name !== 'weir' || !s.weir) return ['', ''];
  return [s.weir.target, s.weir.pass === null ? 'NONE' : s.weir.pass ? 'PASS' : 'MISS'];
}

export function formatTable(summary: Record<Metric, MetricSummary>): string {
  const rows: string[][] = [
    ['metric', 'peer', 'median', 'min–max', 'runs', `× ${BASELINE}`, 'paired ×', 'load ÷ cheapest', 'load cores', 'target', 'verdict'],
  ];
  for (const metric of Object.keys(METRICS) as Metric[]) {
    const s = summary[metric];
    let first = true;
    for (const [name, p] of Object.entries(s.peers) as [PeerName, PeerSummary][]) {
      const fixed = (v: number): string => v.toFixed(METRICS[metric].digits);
      rows.push([
        first ? `${s.label} (${s.unit})` : '',
        name,
        fixed(p.median),
        `${fixed(Math.min(...p.samples))}–${fixed(Math.max(...p.samples))}`,
        String(p.samples.length),
        p.ratio === null ? '-' : `${p.ratio.toFixed(2)}×`,
        p.paired === null ? '-' : `${p.paired.toFixed(2)}×`,
        p.load ? two(p.load.client, p.load.origin) : '-',
        p.load ? two(p.load.clientCores, p.load.originCores) : '-',
        ...verdictCells(s, name),
      ]);
      first = false;
    }
  }
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => pad(r, widths)).join('\n');
}

/**
 * What the load columns mean, the load side's costs over LOAD_SHARE_LIMIT, and why a
 * verdict was refused; one line each.
 */
export function formatLoadNotes(summary: Record<Metric, MetricSummary>): string {
  const lines = [
    `load ÷ cheapest: CPU per GiB or per connection of the load client / the origin, over the cheapest proxy's median (at most ${LOAD_SHARE_LIMIT.toFixed(2)} keeps the proxy the part measured)`,
    `load cores: the most of one core the load client / the origin used in a measured run of that peer (over 0.90 refuses a verdict)`,
  ];
  for (const metric of Object.keys(METRICS) as Metric[]) {
    const s = summary[metric];
    if (metric === 'throughput_cpu' || metric === 'rate_cpu') {
      for (const [name, p] of Object.entries(s.peers) as [PeerName, PeerSummary][]) {
        const over = p.load && Math.max(p.load.client, p.load.origin) > LOAD_SHARE_LIMIT;
        if (over && p.load) lines.push(`over a third: ${s.label}, ${name}: load ${two(p.load.client, p.load.origin)} of the cheapest proxy`);
      }
    }
    if (s.weir?.pass === null) lines.push(`no verdict on ${s.label}: ${s.weir.why.join('; ')}`);
  }
  return lines.join('\n');
}

export function writeResults(file: string, results: object): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
}
