import type {
  FlowPath,
  FlowRecord,
  FlowResult,
  FlowRoute,
  FlowSource,
  FlowTarget,
  FlowTraffic,
  Network,
  RouteMode,
  TagProtocol,
} from '../../streams/contract.js';
import { revise } from '../base/revise.js';

/**
 * A flow actor's logic as a pure reducer (xstate's ActorLogic shape): the shell that
 * owns the sockets feeds it events; every change returns a new record with the
 * revision bumped, and a non-change returns the same record.
 */
export type FlowEvent =
  | { type: 'routed'; at: number; route: FlowRoute; path: FlowPath; resolved_ip?: string; detail?: FlowDetail }
  | { type: 'traffic'; at: number; traffic: FlowTraffic }
  | { type: 'detail'; detail: FlowDetail }
  | { type: 'completed'; at: number; traffic: FlowTraffic; result: FlowResult; route?: FlowRoute; detail?: FlowDetail };

/** What the node learns about a flow besides its traffic: the client's process, the sniffed host. */
export interface FlowDetail {
  process?: Pick<FlowSource, 'process_id' | 'process_name' | 'process_path'>;
  sniffed_host?: string;
}

export interface FlowInit {
  flow_id: string;
  network: Network;
  inbound: TagProtocol;
  source?: FlowSource;
  target: FlowTarget;
  mode: RouteMode;
  at: number;
}

export const ZERO_TRAFFIC: FlowTraffic = Object.freeze({
  bytes_up: 0,
  bytes_down: 0,
  inbound_rx_bytes: 0,
  inbound_tx_bytes: 0,
  outbound_rx_bytes: 0,
  outbound_tx_bytes: 0,
  packets_up: null,
  packets_down: null,
});

export function initialFlowRecord(init: FlowInit): FlowRecord {
  const record: FlowRecord = {
    flow_id: init.flow_id,
    revision: 1,
    state: 'opening',
    network: init.network,
    inbound: init.inbound,
    target: init.target,
    route: { mode: init.mode, action: 'pending', target: null, matched_rule: null, selection_chain: [] },
    path: { outbound: null, remote: null, relay_chain: [] },
    traffic: { ...ZERO_TRAFFIC, ...(init.network === 'udp' ? { packets_up: 0, packets_down: 0 } : {}) },
    throughput: { upload_bps: 0, download_bps: 0, sampled_at_unix_ms: init.at },
    timing: { started_at_unix_ms: init.at, last_activity_at_unix_ms: init.at, ended_at_unix_ms: null, duration_ms: null },
  };
  if (init.source) record.source = init.source;
  return record;
}

export function flowTransition(record: FlowRecord, event: FlowEvent): FlowRecord {
  if (record.state === 'completed') return record;
  switch (event.type) {
    case 'routed': {
      if (record.state !== 'opening') return record;
      const known = withDetail(record, event.detail);
      const target = event.resolved_ip ? revise(known.target, { resolved_ip: event.resolved_ip }) : known.target;
      return revise(known, { revision: record.revision + 1, state: 'active', target, route: event.route, path: event.path });
    }
    case 'detail': {
      const known = withDetail(record, event.detail);
      return known === record ? record : revise(known, { revision: record.revision + 1 });
    }
    case 'traffic': {
      if (sameTraffic(record.traffic, event.traffic)) return record;
      return revise(record, { revision: record.revision + 1 }, trafficFields(record, event.traffic, event.at));
    }
    case 'completed': {
      const moved = !sameTraffic(record.traffic, event.traffic);
      const fields = moved ? trafficFields(record, event.traffic, event.at) : null;
      const timing = fields?.timing ?? record.timing;
      return revise(withDetail(record, event.detail), fields ?? {}, {
        revision: record.revision + 1,
        state: 'completed',
        route: event.route ?? record.route,
        timing: revise(timing, { ended_at_unix_ms: event.at, duration_ms: Math.max(0, event.at - record.timing.started_at_unix_ms) }),
        result: event.result,
      });
    }
  }
}

/**
 * The record with what was learned: process fields join the source (a flow without a
 * known source has nowhere to put them), the sniffed host joins the target. The
 * same record when nothing is new.
 */
function withDetail(record: FlowRecord, detail: FlowDetail | undefined): FlowRecord {
  if (!detail) return record;
  let next = record;
  if (detail.process && record.source && detail.process.process_id !== record.source.process_id) {
    next = revise(next, { source: revise(record.source, detail.process) });
  }
  if (detail.sniffed_host && detail.sniffed_host !== record.target.sniffed_host) {
    next = revise(next, { target: revise(record.target, { sniffed_host: detail.sniffed_host }) });
  }
  return next;
}

function trafficFields(
  record: FlowRecord,
  traffic: FlowTraffic,
  at: number,
): Pick<FlowRecord, 'traffic' | 'throughput' | 'timing'> {
  const elapsed = at - record.throughput.sampled_at_unix_ms;
  const rate = (now: number, before: number): number =>
    elapsed > 0 ? Math.round(((now - before) * 8 * 1000) / elapsed) : 0;
  return {
    traffic,
    throughput: {
      upload_bps: rate(traffic.bytes_up, record.traffic.bytes_up),
      download_bps: rate(traffic.bytes_down, record.traffic.bytes_down),
      sampled_at_unix_ms: at,
    },
    timing: revise(record.timing, { last_activity_at_unix_ms: at }),
  };
}

export function sameTraffic(a: FlowTraffic, b: FlowTraffic): boolean {
  return (
    a.bytes_up === b.bytes_up &&
    a.bytes_down === b.bytes_down &&
    a.inbound_rx_bytes === b.inbound_rx_bytes &&
    a.inbound_tx_bytes === b.inbound_tx_bytes &&
    a.outbound_rx_bytes === b.outbound_rx_bytes &&
    a.outbound_tx_bytes === b.outbound_tx_bytes &&
    a.packets_up === b.packets_up &&
    a.packets_down === b.packets_down
  );
}
