import { slope } from '../bench/backlog-trend.js';

/** One reading of a figure of the node process (RSS in KiB, open files), `at` seconds into the soak. */
export interface Sample {
  readonly at: number;
  readonly value: number;
}

export interface Level {
  /** The floor of the first and of the last window of the last half; null without two windows. */
  readonly first: number | null;
  readonly last: number | null;
  /** Least-squares slope of the windows' floors over the last half, per minute. */
  readonly slopePerMinute: number;
  /** The fitted rise over the last half as a share of the floors' mean. */
  readonly riseShare: number;
  readonly grows: boolean;
}

/**
 * A figure levels when, over the last half of the run, the line fitted through its
 * floors rises by less than GROWTH_SHARE of their mean. Floors, the least value of each
 * of WINDOWS windows of the run: under bursts of load RSS swings with the garbage not
 * yet collected, while a leak (a buffer per flow, a descriptor per reconnect) lifts
 * the floor too, steadily.
 */
export const GROWTH_SHARE = 0.1;
export const WINDOWS = 20;

export function level(samples: readonly Sample[], seconds: number): Level {
  const width = seconds / WINDOWS;
  const floors = new Map<number, number>();
  for (const s of samples) {
    if (s.at < seconds / 2) continue;
    const w = Math.floor(s.at / width);
    floors.set(w, Math.min(floors.get(w) ?? Infinity, s.value));
  }
  const points = [...floors].sort((a, b) => a[0] - b[0]).map(([w, y]) => ({ x: (w + 0.5) * width, y }));
  if (points.length < 2) return { first: null, last: null, slopePerMinute: 0, riseShare: 0, grows: false };
  const perSecond = slope(points);
  const mean = points.reduce((sum, p) => sum + p.y, 0) / points.length;
  const riseShare = mean > 0 ? (perSecond * (points.at(-1)!.x - points[0]!.x)) / mean : 0;
  return { first: points[0]!.y, last: points.at(-1)!.y, slopePerMinute: perSecond * 60, riseShare, grows: riseShare > GROWTH_SHARE };
}
