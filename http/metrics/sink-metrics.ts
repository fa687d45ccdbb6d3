import type { Registry } from 'prom-client';
import type { ControlOps } from '../../actors/control/control-ops.js';
import type { ConnectorState } from '../../actors/contracts/sink.js';
import { SINK_LABELS, sinkLabelsOf, stateGauge } from './sink-state-gauge.js';
import { totalsCounter } from './totals-counter.js';

/** The event sinks' delivery, from their connector states (what `weir connector state` shows). */
export function sinkMetrics(registry: Registry, ops: ControlOps): void {
  stateGauge(registry, ops, 'weir_sink_pending_events', 'Events a sink holds not yet durably delivered.', (s) => s.pending);
  stateGauge(registry, ops, 'weir_sink_oldest_pending_age_seconds', 'Age of the oldest undelivered event (outbox sinks).', (s) =>
    s.oldest_pending_age_ms === null || s.oldest_pending_age_ms === undefined ? s.oldest_pending_age_ms : s.oldest_pending_age_ms / 1000,
  );
  stateGauge(registry, ops, 'weir_sink_dead_letters', 'Events a sink gave up on, listable and replayable (outbox sinks).', (s) => s.dead_letters);
  const totals = (name: string, help: string, read: (s: ConnectorState) => number): void => {
    totalsCounter(registry, { name, help, labelNames: SINK_LABELS }, () => ops.sinks().map((s) => [sinkLabelsOf(s), read(s)]));
  };
  totals('weir_sink_delivered_events_total', 'Events a sink delivered.', (s) => s.total_delivered);
  totals('weir_sink_failed_total', 'Failed deliveries of a sink (total_failed of its connector state).', (s) => s.total_failed);
  totals('weir_sink_replay_gaps_total', 'Ranges of events a sink missed (replay gaps).', (s) => s.replay_gaps);
}
