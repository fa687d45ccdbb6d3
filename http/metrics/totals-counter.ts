import { Counter, type Registry } from 'prom-client';

/** One labelled running total as the node keeps it. */
export type LabelledTotal = [labels: Record<string, string>, value: number];

/**
 * A Prometheus counter that follows running totals the node keeps itself (stats, sink
 * states), read at each scrape. It only ever rises: a total that dips (a cut flow's
 * final count below its last live reading) leaves it where it was until the total
 * passes that again.
 */
export function totalsCounter(
  registry: Registry,
  def: { name: string; help: string; labelNames: readonly string[] },
  read: () => LabelledTotal[],
): Counter {
  const reported = new Map<string, number>();
  return new Counter({
    ...def,
    labelNames: [...def.labelNames],
    registers: [registry],
    collect() {
      for (const [labels, value] of read()) {
        const key = JSON.stringify(labels);
        const last = reported.get(key);
        // A series shows from the first scrape, at 0 if nothing happened yet.
        if (last !== undefined && value <= last) continue;
        reported.set(key, Math.max(value, 0));
        this.inc(labels, Math.max(value - (last ?? 0), 0));
      }
    },
  });
}
