import { slope } from '../bench/backlog-trend.js';

/** One reading of a figure of the node process (RSS in KiB, open files), `at` seconds into the soak. */
export interface Sample {
  readonly at: number;
  readonly value: number;
}

export interface Level {
  readonly first: number | null;
  readonly last: number | null;
  /** Least-squares slope over the samples of the last half, per minute. */
  readonly slopePerMinute: number;
  /** The fitted rise over the last half as a share of its mean. */
  readonly riseShare: number;
  readonly grows: boolean;
}

/**
 * A figure levels when, over the last half of the run, the least-squares line rises by
 * less than GROWTH_SHARE of its mean: a leak of one buffer per flow, or a descriptor
 * per reconnect, rises steadily with the load and passes that within minutes.
 */
export const GROWTH_SHARE = 0.1;

export function level(samples: readonly Sample[], seconds: number): Level {
  const half = samples.filter((s) => s.at >= seconds / 2);
  if (half.length < 2) return { first: null, last: null, slopePerMinute: 0, riseShare: 0, grows: false };
  const perSecond = slope(half.map((s) => ({ x: s.at, y: s.value })));
  const mean = half.reduce((sum, s) => sum + s.value, 0) / half.length;
  const span = half.at(-1)!.at - half[0]!.at;
  const riseShare = mean > 0 ? (perSecond * span) / mean : 0;
  return { first: half[0]!.value, last: half.at(-1)!.value, slopePerMinute: perSecond * 60, riseShare, grows: riseShare > GROWTH_SHARE };
}
