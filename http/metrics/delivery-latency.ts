import { Histogram, type Registry } from 'prom-client';
import type { ControlOps } from '../../actors/control/control-ops.js';
import { occurredAtOf } from '../../streams/published-event.js';

/** 1 ms to an hour: a receiver on the same network to a backlog that waited out an outage. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 1800, 3600];

/**
 * Seconds from each event's occurred_at_unix_ms to its receiver's acknowledgement, by
 * sink: for a flow.completed, from the flow's end to the moment the controller billing
 * from it has it. One observation per acknowledged event, each with its own time (a
 * request acknowledges a batch), a retried one once, when it is acknowledged. Returns
 * what stops the measuring.
 */
export function deliveryLatency(registry: Registry, ops: ControlOps): () => void {
  const histogram = new Histogram({
    name: 'weir_sink_delivery_latency_seconds',
    help: 'Seconds from an event\'s occurred_at to its acknowledgement by the sink\'s receiver, by sink tag (Webhook sinks the node delivers).',
    labelNames: ['sink'],
    buckets: BUCKETS,
    registers: [registry],
  });
  const bySink = new Map<string, Histogram.Internal<'sink'>>();
  const subscription = ops.deliveryAcks$().subscribe(({ sink, events, acked_at_unix_ms: at }) => {
    let series = bySink.get(sink);
    if (!series) bySink.set(sink, (series = histogram.labels({ sink })));
    for (const e of events) {
      const occurred = occurredAtOf(e.body);
      // A clock stepped back between the event and its answer counts as no wait.
      if (!Number.isNaN(occurred)) series.observe(Math.max(0, at - occurred) / 1000);
    }
  });
  return () => subscription.unsubscribe();
}
