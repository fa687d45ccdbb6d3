import { slope } from '../bench/backlog-trend.js';

/** One reading of a figure of the node process (RSS in KiB, open files), `at` seconds into the soak. */
export interface Sample {
  readonly at: number;
  readonly value: number;
}

export interface Level {
  /** The floor at the start and at the end of the last half (see level); null without four windows. */
  readonly first: number | null;
  readonly last: number | null;
  /** Least-squares slope of the windows' floors over the last half, per minute. */
  readonly slopePerMinute: number;
  /** From the first floor to the last, as a share of the first. */
  readonly riseShare: number;
  readonly grows: boolean;
}

/**
 * A figure levels when its floor at the end of the run is within GROWTH_SHARE of its
 * floor at the start of the last half. Floors, the least value of each of WINDOWS
 * windows of the run, the first and last two of the last half taken together: under
 * bursts of load RSS swings with the garbage not yet collected, and a Redis outage
 * lifts it while the embedded store holds events, then it comes back down; a leak (a
 * buffer per flow, a descriptor per reconnect) lifts the floor for good.
 */
export const GROWTH_SHARE = 0.1;
export const WINDOWS = 20;
const EDGE = 2;

export function level(samples: readonly Sample[], seconds: number): Level {
  const width = seconds / WINDOWS;
  const floors = new Map<number, number>();
  for (const s of samples) {
    if (s.at < seconds / 2) continue;
    const w = Math.floor(s.at / width);
    floors.set(w, Math.min(floors.get(w) ?? Infinity, s.value));
  }
  const points = [...floors].sort((a, b) => a[0] - b[0]).map(([w, y]) => ({ x: (w + 0.5) * width, y }));
  if (points.length < 2 * EDGE) return { first: null, last: null, slopePerMinute: 0, riseShare: 0, grows: false };
  const first = Math.min(...points.slice(0, EDGE).map((p) => p.y));
  const last = Math.min(...points.slice(-EDGE).map((p) => p.y));
  const riseShare = first > 0 ? (last - first) / first : 0;
  return { first, last, slopePerMinute: slope(points) * 60, riseShare, grows: riseShare > GROWTH_SHARE };
}
