import type { Metric, MetricObjectWithValues, MetricValue, Registry } from 'prom-client';

/** prom-client's event loop delay summary, read from a histogram that each scrape resets. */
const WINDOW = ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99'].map((s) => `nodejs_eventloop_lag_${s}_seconds`);
const MEAN = 'nodejs_eventloop_lag_mean_seconds';

type Got = MetricObjectWithValues<MetricValue<string>>;

/**
 * Scrapes closer together than the histogram's resolution find it empty: prom-client
 * then renders a mean and stddev of NaN and a min of 9.2e9 s. Such a scrape shows the
 * last window that had samples instead (none before the first), so no sample is NaN.
 */
export function holdEventLoopWindow(registry: Registry): void {
  const mean = registry.getSingleMetric(MEAN);
  if (!mean) return;
  const readMean = mean.get.bind(mean) as () => Promise<Got>;
  for (const name of WINDOW) {
    const metric = registry.getSingleMetric(name) as (Metric & { get(): Promise<Got> }) | undefined;
    if (!metric) continue;
    const read = metric.get.bind(metric);
    let held: Got | undefined;
    metric.get = async () => {
      const now = await read();
      const empty = (await readMean()).values.some((v) => Number.isNaN(v.value));
      if (!empty) held = now;
      return empty ? (held ?? { ...now, values: [] }) : now;
    };
  }
}
