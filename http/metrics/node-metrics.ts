import { collectDefaultMetrics, Registry } from 'prom-client';
import type { ControlOps } from '../../actors/control/control-ops.js';
import type { SubscriberSlots } from '../events/subscriber-slots.js';
import { deliveryLatency } from './delivery-latency.js';
import { flowMetrics } from './flow-metrics.js';
import { outboxMetrics } from './outbox-metrics.js';
import { sinkMetrics } from './sink-metrics.js';
import { streamMetrics } from './stream-metrics.js';
import { holdEventLoopWindow } from './event-loop-window.js';

/** prom-client defaults that are gauges with a `_total` suffix. */
const MISNAMED_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

export interface NodeMetrics {
  registry: Registry;
  /** Stops counting events and flows. */
  close(): void;
}

/**
 * The node's Prometheus metrics in a registry of its own (several nodes may share a
 * process in tests): flows, bytes, failures, the bus and its live subscribers, the
 * sinks and their outbox, Redis, and prom-client's process and Node.js metrics.
 */
export function nodeMetrics(ops: ControlOps, slots: SubscriberSlots, ipcSubscribers: () => number): NodeMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters, which promtool refuses: the rest of the default set stays.
  for (const name of MISNAMED_DEFAULTS) registry.removeSingleMetric(name);
  holdEventLoopWindow(registry);
  const flows = flowMetrics(registry, ops);
  const streams = streamMetrics(registry, ops, slots, ipcSubscribers);
  sinkMetrics(registry, ops);
  outboxMetrics(registry, ops);
  const stopLatency = deliveryLatency(registry, ops);
  // A scrape asks for the sinks' states once, before the gauges read them (a Redis sink
  // reads its state only when asked: webhook-sink.ts).
  const collect = registry.metrics.bind(registry);
  registry.metrics = async () => {
    await ops.freshSinks();
    return collect();
  };
  return {
    registry,
    close() {
      flows.unsubscribe();
      streams.unsubscribe();
      stopLatency();
    },
  };
}
