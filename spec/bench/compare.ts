import { median } from './report.js';

/**
 * A side-by-side measurement of the extra bench parts (one SOCKS5 hop, sink delivery):
 * several sides measured in the same run, one value per side and round.
 */
export interface Comparison {
  readonly label: string;
  readonly unit: string;
  readonly digits: number;
  /** The side every ratio is taken against; null when the sides are only listed. */
  readonly baseline: string | null;
  /** Values per side in the unit, one per round, in the order the table shows the sides. */
  readonly samples: Record<string, number[]>;
}

export interface SideSummary {
  readonly samples: number[];
  readonly median: number;
  /** median / the baseline's median; null without a baseline. */
  readonly ratio: number | null;
}

export interface ComparisonSummary {
  readonly label: string;
  readonly unit: string;
  readonly baseline: string | null;
  readonly sides: Record<string, SideSummary>;
}

export function summarizeComparison(c: Comparison): ComparisonSummary {
  const base = c.baseline === null ? undefined : c.samples[c.baseline];
  const baseMedian = base && base.length > 0 ? median(base) : null;
  const sides: Record<string, SideSummary> = {};
  for (const [name, values] of Object.entries(c.samples)) {
    if (values.length === 0) continue;
    const m = median(values);
    sides[name] = { samples: values, median: m, ratio: baseMedian ? m / baseMedian : null };
  }
  return { label: c.label, unit: c.unit, baseline: c.baseline, sides };
}

/** One table: measure, side, median, min–max, runs, ratio against the comparison's baseline. */
export function formatComparisons(list: readonly Comparison[]): string {
  const rows: string[][] = [['measure', 'side', 'median', 'min–max', 'runs', 'ratio']];
  for (const c of list) {
    const s = summarizeComparison(c);
    const fixed = (v: number): string => v.toFixed(c.digits);
    let first = true;
    for (const [name, side] of Object.entries(s.sides)) {
      rows.push([
        first ? `${s.label} (${s.unit})` : '',
        name,
        fixed(side.median),
        `${fixed(Math.min(...side.samples))}–${fixed(Math.max(...side.samples))}`,
        String(side.samples.length),
        side.ratio === null ? '-' : `${side.ratio.toFixed(2)}× ${s.baseline}`,
      ]);
      first = false;
    }
  }
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd()).join('\n');
}

/** Appends a value to a comparison's side, creating the side on first use. */
export function record(c: Comparison, side: string, value: number): void {
  (c.samples[side] ??= []).push(value);
}
