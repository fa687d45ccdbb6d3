import { Gauge, type Registry } from 'prom-client';
import type { Subscription } from 'rxjs';
import type { ControlOps } from '../../actors/control/control-ops.js';
import type { FlowRecord } from '../../streams/contract.js';
import { Tally } from './tally.js';
import { totalsCounter } from './totals-counter.js';

/** Outbound types that pick another outbound: a flow's leaf is never one of them. */
const POLICY_TYPES = new Set(['selector', 'url_test']);

/** The outbound label of a flow not routed yet. */
const NONE = 'none';

/** The leaf outbound the flow went through or was sent to (a blocked or failed flow's path has none). */
const outboundOf = (r: FlowRecord): string => r.path.outbound?.tag ?? r.route.selection_chain.at(-1) ?? NONE;

const outcomeOf = (r: FlowRecord): string => r.result?.outcome ?? NONE;
/** One series' key: each tag led by its length, so no two label sets meet whatever a tag holds. */
function completedKey(r: FlowRecord): string {
  const inbound = r.inbound.tag;
  const outbound = outboundOf(r);
  return `${inbound.length}:${inbound}${outbound.length}:${outbound}${outcomeOf(r)}`;
}
const completedLabels = (r: FlowRecord): Record<string, string> => ({ inbound: r.inbound.tag, outbound: outboundOf(r), outcome: outcomeOf(r) });

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
  const completed = new Tally();
  totalsCounter(
    registry,
    {
      name: 'weir_flows_completed_total',
      help: 'Flows completed since the control plane started, by inbound tag, leaf outbound tag and outcome.',
      labelNames: ['inbound', 'outbound', 'outcome'],
    },
    () => completed.totals(),
  );
  const failures = new Tally();
  totalsCounter(
    registry,
    {
      name: 'weir_flow_failures_total',
      help: 'Flows that ended failed since the control plane started, by failure code (docs/failure-codes.md).',
      labelNames: ['code'],
    },
    () => failures.totals(),
  );
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
    completed.add(completedKey(r), r, completedLabels);
    const code = r.result?.failure?.code;
    if (r.result?.outcome === 'failed' && code) failures.add(code, code, (c) => ({ code: c }));
  });
}
