import { interval, map, share, tap, type Observable, type SchedulerLike, asyncScheduler } from 'rxjs';

/**
 * The node's 1 s clock. `beforeEmit` runs once per tick before any subscriber sees
 * it: the flow table reads counters there, so the revision sampler that follows sees
 * every change of the tick.
 */
export function nodeTick(
  periodMs: number,
  now: () => number,
  beforeEmit: (at: number) => void,
  scheduler: SchedulerLike = asyncScheduler,
): Observable<number> {
  return interval(periodMs, scheduler).pipe(
    map(() => now()),
    tap(beforeEmit),
    share(),
  );
}
