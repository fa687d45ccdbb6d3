import { Observable, type OperatorFunction } from 'rxjs';
import type { FlowChange } from './flow-change.js';

/**
 * Passes lifecycle changes through at once and holds traffic changes until the next
 * tick, then emits the latest one of each flow whose revision moved since that flow
 * was last emitted. A flow that completes before the tick drops its pending sample:
 * flow.completed carries the final numbers.
 */
export function sampleRevisions(tick$: Observable<unknown>): OperatorFunction<FlowChange, FlowChange> {
  return (source) =>
    new Observable<FlowChange>((subscriber) => {
      const pending = new Map<string, FlowChange>();
      const emitted = new Map<string, number>();
      const tickSub = tick$.subscribe(() => {
        for (const change of pending.values()) {
          const id = change.record.flow_id;
          if ((emitted.get(id) ?? -1) < change.record.revision) {
            emitted.set(id, change.record.revision);
            subscriber.next(change);
          }
        }
        pending.clear();
      });
      const sourceSub = source.subscribe({
        next(change) {
          const id = change.record.flow_id;
          if (change.kind === 'traffic') {
            pending.set(id, change);
            return;
          }
          if (change.kind === 'completed') {
            pending.delete(id);
            emitted.delete(id);
          } else {
            emitted.set(id, change.record.revision);
          }
          subscriber.next(change);
        },
        error: (err) => subscriber.error(err),
        complete: () => subscriber.complete(),
      });
      return () => {
        tickSub.unsubscribe();
        sourceSub.unsubscribe();
      };
    });
}
