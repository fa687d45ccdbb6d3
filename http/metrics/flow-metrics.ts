import { Counter, Gauge, type Registry } from 'prom-client';
import type { Subscription } from 'rxjs';
import type { ControlOps } from '../../actors/control/control-ops.js';
import type { FlowRecord } from '../../streams/contract.js';
import { totalsCounter } from './totals-counter.js';

/** Outbound types that pick another outbound: a flow's leaf is never one of them. */
const POLICY_TYPES = new Set(['selector', 'url_test']);

/** The outbound label of a flow not routed yet. */
const NONE = 'none';

/** The leaf outbound the flow went through or was sent to (a blocked or failed flow's path has none). */
const outboundOf = (r: FlowRecord): string => r.path.outbound?.tag ?? r.route.selection_chain.at(-1) ?? NONE;

/**
 * Flows: active ones by inbound and outbound (read at the scrape), completed ones by
 * inbound, outbound and outcome and failures by code (counted as each completes), and
 * bytes up and down (the node's totals: completed flows and the live counters).
 * Returns what stops the counting.
 */
export function flowMetrics(registry: Registry, ops: ControlOps): Subscription {
  new Gauge({
    name: 'weir_flows_active',
    help: 'Flows open now (opening or active), by inbound tag and leaf outbound tag ("none" while not routed).',
    labelNames: ['inbound', 'outbound'],
    registers: [registry],
    collect() {
      this.reset();
      // Every inbound and leaf outbound has a sample, 0 when idle: a panel shows 0, not "No data".
      const leaves = ops.routing().outbounds.filter((o) => !POLICY_TYPES.has(o.type));
      for (const inbound of ops.inboundTags()) for (const o of leaves) this.set({ inbound, outbound: o.tag }, 0);
      for (const r of ops.activeFlows()) this.inc({ inbound: r.inbound.tag, outbound: outboundOf(r) });
    },
  });
  const completed = new Counter({
    name: 'weir_flows_completed_total',
    help: 'Flows completed since the control plane started, by inbound tag, leaf outbound tag and outcome.',
    labelNames: ['inbound', 'outbound', 'outcome'],
    registers: [registry],
  });
  const failures = new Counter({
    name: 'weir_flow_failures_total',
    help: 'Flows that ended failed since the control plane started, by failure code (docs/failure-codes.md).',
    labelNames: ['code'],
    registers: [registry],
  });
  totalsCounter(registry, { name: 'weir_flows_started_total', help: 'Flows started since the node started.', labelNames: [] }, () => [[{}, ops.stats().total_started]]);
  totalsCounter(
    registry,
    { name: 'weir_flow_bytes_total', help: 'Bytes relayed for clients since the node started (up: client to target), live flows included.', labelNames: ['direction'] },
    () => {
      const stats = ops.stats();
      return [
        [{ direction: 'up' }, stats.bytes_up],
        [{ direction: 'down' }, stats.bytes_down],
      ];
    },
  );
  return ops.completedFlows$().subscribe((r) => {
    completed.inc({ inbound: r.inbound.tag, outbound: outboundOf(r), outcome: r.result?.outcome ?? NONE });
    const code = r.result?.failure?.code;
    if (r.result?.outcome === 'failed' && code) failures.inc({ code });
  });
}
