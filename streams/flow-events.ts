import type { BusEvent, FlowLifecyclePayload, FlowRecord, FlowUpdatedPayload } from './contract.js';
import type { FlowChange } from './flow-change.js';
import { lifecyclePayloadWriter } from './flow-json.js';

const LIFECYCLE_TYPE = {
  started: 'flow.started',
  routed: 'flow.routed',
  completed: 'flow.completed',
} as const;

/** Maps one (sampled) flow change to the bus event the contract names for it. */
export function flowEvent(change: FlowChange): BusEvent {
  const { record, auth } = change;
  if (change.kind === 'traffic') {
    return {
      event_type: 'flow.updated',
      payload: updatedPayload(record),
      occurred_at_unix_ms: record.throughput.sampled_at_unix_ms,
      principal_key: auth.principal_key,
    };
  }
  const payload = lifecyclePayload(change);
  return {
    event_type: LIFECYCLE_TYPE[change.kind],
    payload,
    writePayload: lifecyclePayloadWriter(payload),
    // flow.completed happens at the flow's end; the others when they are published.
    occurred_at_unix_ms: change.kind === 'completed' ? (record.timing.ended_at_unix_ms ?? undefined) : undefined,
    principal_key: auth.principal_key,
  };
}

function lifecyclePayload({ kind, record, auth }: FlowChange): FlowLifecyclePayload {
  const t = record.traffic;
  const completed = kind === 'completed';
  const payload: FlowLifecyclePayload = {
    flow_id: record.flow_id,
    network: record.network,
    inbound: record.inbound,
    auth,
    target: { host: record.target.host, port: record.target.port },
    route: { mode: record.route.mode, target: record.route.target },
    policy: null,
    outbound: record.path.outbound,
    traffic: completed
      ? { ...t }
      : { bytes_up: t.bytes_up, bytes_down: t.bytes_down, packets_up: t.packets_up, packets_down: t.packets_down },
    timing: {
      started_at_unix_ms: record.timing.started_at_unix_ms,
      ended_at_unix_ms: record.timing.ended_at_unix_ms,
      duration_ms: record.timing.duration_ms,
    },
    outcome: record.result?.outcome ?? null,
    record,
  };
  if (record.result?.close_reason) payload.close_reason = record.result.close_reason;
  return payload;
}

function updatedPayload(record: FlowRecord): FlowUpdatedPayload {
  const t = record.traffic;
  return {
    flow_id: record.flow_id,
    network: record.network,
    inbound_tag: record.inbound.tag,
    outbound_tag: record.path.outbound?.tag ?? null,
    bytes_up: t.bytes_up,
    bytes_down: t.bytes_down,
    inbound_rx_bytes: t.inbound_rx_bytes,
    inbound_tx_bytes: t.inbound_tx_bytes,
    outbound_rx_bytes: t.outbound_rx_bytes,
    outbound_tx_bytes: t.outbound_tx_bytes,
    throughput_up_bps: record.throughput.upload_bps,
    throughput_down_bps: record.throughput.download_bps,
    snapshot_at_unix_ms: record.throughput.sampled_at_unix_ms,
    record,
  };
}
