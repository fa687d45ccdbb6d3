import { Observable, type OperatorFunction, type Subscription } from 'rxjs';

/**
 * mergeMap for many long-lived inners: the flow table's merge of every actor's state
 * stream. mergeMap keeps its inner subscriptions in an array, so each inner's end
 * searches and splices it, and the cost of a flow's end grows with the flows open (a
 * shutdown that ends them all at once pays it for each). Here they sit in a Set, whose
 * removal costs the same however many are open.
 * Completes when the source and every inner have; an inner's error is passed on.
 */
export function mergeInners<S, T>(project: (value: S) => Observable<T>): OperatorFunction<S, T> {
  return (source) =>
    new Observable<T>((subscriber) => {
      const inners = new Set<Subscription>();
      let sourceDone = false;
      const completeWhenDone = (): void => {
        if (sourceDone && inners.size === 0) subscriber.complete();
      };
      const sourceSub = source.subscribe({
        next(value) {
          let ended = false;
          let sub: Subscription | undefined;
          sub = project(value).subscribe({
            next: (inner) => subscriber.next(inner),
            error: (err: unknown) => subscriber.error(err),
            complete: () => {
              ended = true;
              if (sub) inners.delete(sub);
              completeWhenDone();
            },
          });
          // An inner that ended while it was subscribed to is not kept.
          if (!ended) inners.add(sub);
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => {
          sourceDone = true;
          completeWhenDone();
        },
      });
      return () => {
        sourceSub.unsubscribe();
        for (const sub of inners) sub.unsubscribe();
        inners.clear();
      };
    });
}
