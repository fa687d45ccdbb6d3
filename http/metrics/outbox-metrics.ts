import { Gauge, type Registry } from 'prom-client';
import type { ControlOps } from '../../actors/control/control-ops.js';
import { stateGauge } from './sink-state-gauge.js';

/**
 * The sinks' outbox storage, from their connector states (what GET /api/v1/sinks shows
 * under outbox_storage), and whether the node's outbox reaches Redis, as its
 * redis_unreachable and redis_recovered warnings tell.
 */
export function outboxMetrics(registry: Registry, ops: ControlOps): void {
  stateGauge(registry, ops, 'weir_sink_outbox_write_blocked', 'Whether disk protection pauses new outbox writes of a sink now (1) or not (0): outbox_storage.write_blocked.', (s) =>
    s.outbox_storage.write_blocked ? 1 : 0,
  );
  stateGauge(registry, ops, 'weir_sink_outbox_bytes', 'Bytes of event bodies a sink\'s outbox holds, pending and dead letters (outbox sinks).', (s) => s.outbox_storage.bytes);
  new Gauge({
    name: 'weir_sink_outbox_info',
    help: 'Always 1, for each outbox sink: its store (embedded: LMDB in node.state_dir; redis: BullMQ) as a label.',
    labelNames: ['sink', 'type', 'store'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of ops.sinks()) {
        if (s.outbox_storage.store) this.set({ sink: s.tag, type: s.type, store: s.outbox_storage.store }, 1);
      }
    },
  });
  // `redis` changes only with a restart: a node without it has no such series.
  if (ops.redisUp() === null) return;
  new Gauge({
    name: 'weir_redis_up',
    help: 'Whether the node\'s outbox reaches Redis (1) or not (0, also before a Webhook sink opened it); absent without `redis`.',
    registers: [registry],
    collect() {
      this.set(ops.redisUp() ? 1 : 0);
    },
  });
}
