/** One reading of a sink's backlog (its pending, or the events not yet delivered), `at` seconds into the load. */
export interface BacklogSample {
  readonly at: number;
  readonly backlog: number;
}

export interface BacklogTrend {
  /** Mean backlog over the middle and the last third of the run; null when a third holds no sample. */
  readonly middleMean: number | null;
  readonly lastMean: number | null;
  /** Least-squares slope of the backlog over the last two thirds, in events per second. */
  readonly slopePerSecond: number;
  /**
   * Whether the backlog stays bounded: over the last two thirds it grows by less than
   * BOUNDED_SHARE of the events produced per second. A sink that falls behind grows at
   * the gap between production and delivery, a large share of it.
   */
  readonly bounded: boolean;
}

export const BOUNDED_SHARE = 0.02;

function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

/** The least-squares slope of y over x; 0 with fewer than two distinct x. */
export function slope(points: readonly { x: number; y: number }[]): number {
  const mx = mean(points.map((p) => p.x)) ?? 0;
  const my = mean(points.map((p) => p.y)) ?? 0;
  const sxx = points.reduce((sum, p) => sum + (p.x - mx) ** 2, 0);
  const sxy = points.reduce((sum, p) => sum + (p.x - mx) * (p.y - my), 0);
  return sxx === 0 ? 0 : sxy / sxx;
}

/** The trend of the samples of a run of `seconds` during which the node produced `producedPerSecond` events/s. */
export function backlogTrend(samples: readonly BacklogSample[], seconds: number, producedPerSecond: number): BacklogTrend {
  const third = seconds / 3;
  const middle = samples.filter((s) => s.at >= third && s.at < 2 * third);
  const last = samples.filter((s) => s.at >= 2 * third);
  const slopePerSecond = slope([...middle, ...last].map((s) => ({ x: s.at, y: s.backlog })));
  return {
    middleMean: mean(middle.map((s) => s.backlog)),
    lastMean: mean(last.map((s) => s.backlog)),
    slopePerSecond,
    bounded: slopePerSecond < BOUNDED_SHARE * producedPerSecond,
  };
}
