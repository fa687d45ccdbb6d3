import { Gauge, type Registry } from 'prom-client';
import type { ControlOps } from '../../actors/control/control-ops.js';
import type { ConnectorState } from '../../actors/contracts/sink.js';

/** The labels of a sink's series: its tag and type. */
export const SINK_LABELS = ['sink', 'type'] as const;
export const sinkLabelsOf = (s: ConnectorState): Record<string, string> => ({ sink: s.tag, type: s.type });

/**
 * A gauge of one field of each sink's connector state (what GET /api/v1/sinks shows),
 * read at the scrape; sinks whose field is absent are left out.
 */
export function stateGauge(registry: Registry, ops: ControlOps, name: string, help: string, read: (s: ConnectorState) => number | null | undefined): void {
  new Gauge({
    name,
    help,
    labelNames: [...SINK_LABELS],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of ops.sinks()) {
        const value = read(s);
        if (value !== null && value !== undefined) this.set(sinkLabelsOf(s), value);
      }
    },
  });
}
