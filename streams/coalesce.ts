import { Observable, asyncScheduler, type OperatorFunction, type SchedulerLike } from 'rxjs';

/**
 * Groups values into one array per `periodMs` window, so a transport writes once per
 * tick instead of once per event. Unlike bufferTime, no timer runs while idle: the
 * window opens with the first value.
 */
export function coalesce<T>(periodMs: number, scheduler: SchedulerLike = asyncScheduler): OperatorFunction<T, T[]> {
  return (source) =>
    new Observable<T[]>((subscriber) => {
      let pending: T[] = [];
      let scheduled = false;
      const flush = (): void => {
        scheduled = false;
        if (pending.length === 0) return;
        const batch = pending;
        pending = [];
        subscriber.next(batch);
      };
      const sub = source.subscribe({
        next(value) {
          pending.push(value);
          if (!scheduled) {
            scheduled = true;
            subscriber.add(scheduler.schedule(flush, periodMs));
          }
        },
        error(err) {
          flush();
          subscriber.error(err);
        },
        complete() {
          flush();
          subscriber.complete();
        },
      });
      return () => sub.unsubscribe();
    });
}
