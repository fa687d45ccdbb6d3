import type { LabelledTotal } from './totals-counter.js';

/**
 * Running totals by labels, counted by the node as things happen and read by a
 * totalsCounter at each scrape: a prom-client inc per flow or event (a label object and
 * its hash) cost more than the rest of that flow's accounting. A series is named by
 * `key`, made of its label values; its labels are built once, when it first counts.
 */
export class Tally {
  private readonly series = new Map<string, LabelledTotal>();

  add<T>(key: string, value: T, labelsOf: (value: T) => Record<string, string>): void {
    const series = this.series.get(key);
    if (series) series[1]++;
    else this.series.set(key, [labelsOf(value), 1]);
  }

  totals(): LabelledTotal[] {
    return [...this.series.values()];
  }
}
