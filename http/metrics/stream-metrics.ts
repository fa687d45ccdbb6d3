import { Gauge, type Registry } from 'prom-client';
import type { Subscription } from 'rxjs';
import type { ControlOps } from '../../actors/control/control-ops.js';
import { SUBSCRIBER_KINDS, type SubscriberSlots } from '../events/subscriber-slots.js';
import { Tally } from './tally.js';
import { totalsCounter } from './totals-counter.js';

/**
 * The event bus and its live readers: events published by type (counted as published),
 * live subscribers by kind, and what they were never sent for falling behind.
 * Returns what stops the counting.
 */
export function streamMetrics(registry: Registry, ops: ControlOps, slots: SubscriberSlots, ipcSubscribers: () => number): Subscription {
  const published = new Tally();
  totalsCounter(
    registry,
    {
      name: 'weir_events_published_total',
      help: 'Events the node published on its bus since its control plane started, by event type.',
      labelNames: ['event_type'],
    },
    () => published.totals(),
  );
  new Gauge({
    name: 'weir_live_subscribers',
    help: 'Live subscribers of the control plane now, by kind (sse, ws: the event streams; clash: Clash API streams; ipc: IPC subscriptions).',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      const held = slots.held();
      for (const kind of SUBSCRIBER_KINDS) this.set({ kind }, held[kind]);
      this.set({ kind: 'ipc' }, ipcSubscribers());
    },
  });
  totalsCounter(
    registry,
    {
      name: 'weir_live_messages_dropped_total',
      help: 'Messages live subscribers were never sent because they fell behind (sse, ws: events queued when cut off; clash: skipped messages), by kind.',
      labelNames: ['kind'],
    },
    () => {
      const dropped = slots.droppedTotals();
      return SUBSCRIBER_KINDS.map((kind) => [{ kind }, dropped[kind]]);
    },
  );
  return ops.published$().subscribe((e) => published.add(e.event_type, e.event_type, (event_type) => ({ event_type })));
}
