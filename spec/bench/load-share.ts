/** What the load side (the native client and the origin) spent during one measured run. */
export interface LoadCost {
  readonly clientCpuS: number;
  readonly originCpuS: number;
  /** Wall time of the measured run. */
  readonly seconds: number;
  /** GiB streamed or connections completed: what the proxy's CPU is divided by. */
  readonly units: number;
}

/** The load side of one run, in the unit of the proxy's CPU figure it sits beside. */
export interface LoadRound {
  /** CPU per unit: s per GiB, or µs per connection (perUnitScale). */
  readonly client: number;
  readonly origin: number;
  /** Share of one core used over the run. */
  readonly clientCores: number;
  readonly originCores: number;
}

/** Past this share of one core the client or origin may be what limits the figure. */
export const SATURATED_CORES = 0.9;
/** The load side's CPU per unit may be at most this share of the cheapest proxy's. */
export const LOAD_SHARE_LIMIT = 1 / 3;

/** perUnitScale: 1 for CPU seconds per GiB, 1e6 for µs per connection. */
export function loadRound(c: LoadCost, perUnitScale: number): LoadRound {
  const per = (s: number): number => (c.units > 0 ? (s * perUnitScale) / c.units : Infinity);
  const cores = (s: number): number => (c.seconds > 0 ? s / c.seconds : Infinity);
  return { client: per(c.clientCpuS), origin: per(c.originCpuS), clientCores: cores(c.clientCpuS), originCores: cores(c.originCpuS) };
}

/** Why a run cannot judge the proxy (its client or origin used more than SATURATED_CORES), or null. */
export function saturation(r: LoadRound): string | null {
  const over = (['client', 'origin'] as const)
    .map((side) => ({ side, cores: side === 'client' ? r.clientCores : r.originCores }))
    .filter((s) => s.cores > SATURATED_CORES);
  return over.length === 0 ? null : over.map((s) => `the load ${s.side} used ${(s.cores * 100).toFixed(0)}% of a core`).join(' and ');
}
