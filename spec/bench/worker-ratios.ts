import { METRICS, type Metric, type Samples } from './report.js';

/** The figures issue 37 sets workers 2 against workers 1 by. */
const PAIRED: readonly Metric[] = ['rate', 'rate_cpu', 'throughput', 'throughput4'];

/**
 * weir with node.workers 2 against weir with 1, paired by round (the same minutes of a
 * shared machine): each round's ratio, then their median. Empty when either did not run.
 */
export function workerRatios(samples: Samples): string {
  const rows = PAIRED.flatMap((metric) => {
    const one = samples[metric]['weir'] ?? [];
    const two = samples[metric]['weir-w2'] ?? [];
    const ratios = one.flatMap((v, i) => (v && two[i] ? [two[i] / v] : []));
    if (ratios.length === 0) return [];
    const sorted = [...ratios].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    return [`  ${METRICS[metric].label} (${METRICS[metric].unit}): ${ratios.map((r) => r.toFixed(2)).join(', ')}; median ${median.toFixed(2)}`];
  });
  if (rows.length === 0) return '';
  return ['weir-w2 / weir (node.workers 2 against 1), per round; targets ≥ 1.4 for conn/s and four streams:', ...rows].join('\n');
}
