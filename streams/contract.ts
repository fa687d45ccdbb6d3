// The node.event.v1 contract: envelope, FlowRecord and payload shapes.
// Field names are those of the contract (shared/seed/node-runtime-observation.md)
// and must not be renamed.

import type { Pieces } from './text-pieces.js';

export const SCHEMA_ID = 'node.event.v1';

export const EVENT_TYPES = [
  'engine.started',
  'engine.stopped',
  'engine.warning',
  'config.changed',
  'flow.started',
  'flow.snapshot',
  'flow.routed',
  'flow.updated',
  'flow.completed',
  'policy.selected',
  'policy.probe.completed',
  'stats.sampled',
  'ipc.connected',
  'ipc.disconnected',
  'control.audit',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export const FLOW_EVENT_TYPES: readonly EventType[] = [
  'flow.started',
  'flow.snapshot',
  'flow.routed',
  'flow.updated',
  'flow.completed',
];

export interface Envelope<P extends object = object> {
  schema_id: typeof SCHEMA_ID;
  /** Opaque; unique across engine starts. Consumers only dedupe on it. */
  event_id: string;
  event_type: EventType;
  occurred_at_unix_ms: number;
  /** Node id, injected on sink delivery; null on live consumers. */
  source_id: string | null;
  sequence: number;
  principal_key: string | null;
  labels: Record<string, string>;
  payload: P;
}

export type FlowState = 'opening' | 'active' | 'completed';
export type Network = 'tcp' | 'udp';
export const OUTCOMES = ['direct_relayed', 'chained_relayed', 'blocked', 'failed', 'cancelled'] as const;
export type Outcome = (typeof OUTCOMES)[number];
export type CloseReason = 'manual' | 'idle_timeout' | 'upstream_error';
export type RouteMode = 'rule' | 'global';

export interface Endpoint {
  host: string;
  port: number;
}

export interface TagProtocol {
  tag: string;
  protocol: string;
}

export interface FlowSource {
  ip: string;
  port: number;
  process_id?: number;
  process_name?: string;
  process_path?: string;
}

export interface FlowTarget extends Endpoint {
  resolved_ip?: string;
  sniffed_host?: string;
}

export interface MatchedRule {
  index: number;
  condition: string;
}

export interface FlowRoute {
  mode: RouteMode;
  /** `route` once decided; `pending` before. */
  action: string;
  /** The tag the mode or rule chose (global target, rule outbound or final); null while pending. */
  target: string | null;
  matched_rule: MatchedRule | null;
  selection_chain: string[];
}

export interface RelayHop {
  tag: string;
  protocol: string;
  server: string;
  port: number;
}

export interface FlowPath {
  outbound: TagProtocol | null;
  remote: Endpoint | null;
  relay_chain: RelayHop[];
}

export interface FlowTraffic {
  bytes_up: number;
  bytes_down: number;
  inbound_rx_bytes: number;
  inbound_tx_bytes: number;
  outbound_rx_bytes: number;
  outbound_tx_bytes: number;
  packets_up: number | null;
  packets_down: number | null;
}

export interface FlowThroughput {
  upload_bps: number;
  download_bps: number;
  sampled_at_unix_ms: number;
}

export interface FlowTiming {
  started_at_unix_ms: number;
  last_activity_at_unix_ms: number;
  ended_at_unix_ms: number | null;
  duration_ms: number | null;
}

export interface FlowFailure {
  stage: string;
  code: string;
  message: string;
  remote?: Endpoint;
}

export interface FlowResult {
  outcome: Outcome;
  close_reason: CloseReason | null;
  failure: FlowFailure | null;
}

export interface FlowAuth {
  /** `noauth`, `socks5` (username/password) or `http_basic`. */
  scheme: string;
  principal_key: string | null;
  attributes: Record<string, string>;
}

export interface FlowRecord {
  flow_id: string;
  revision: number;
  state: FlowState;
  network: Network;
  inbound: TagProtocol;
  source?: FlowSource;
  target: FlowTarget;
  route: FlowRoute;
  path: FlowPath;
  traffic: FlowTraffic;
  throughput: FlowThroughput;
  timing: FlowTiming;
  result?: FlowResult;
}

/** Legacy top-level fields of flow.started / flow.routed / flow.completed, beside `record`. */
export interface FlowLifecyclePayload {
  flow_id: string;
  network: Network;
  inbound: TagProtocol;
  auth: FlowAuth;
  target: Endpoint;
  route: { mode: RouteMode; target: string | null };
  policy: null;
  outbound: TagProtocol | null;
  traffic: Partial<FlowTraffic> & Pick<FlowTraffic, 'bytes_up' | 'bytes_down' | 'packets_up' | 'packets_down'>;
  timing: { started_at_unix_ms: number; ended_at_unix_ms: number | null; duration_ms: number | null };
  outcome: Outcome | null;
  close_reason?: CloseReason;
  record: FlowRecord;
}

export interface FlowUpdatedPayload {
  flow_id: string;
  network: Network;
  inbound_tag: string;
  outbound_tag: string | null;
  bytes_up: number;
  bytes_down: number;
  inbound_rx_bytes: number;
  inbound_tx_bytes: number;
  outbound_rx_bytes: number;
  outbound_tx_bytes: number;
  throughput_up_bps: number;
  throughput_down_bps: number;
  snapshot_at_unix_ms: number;
  record: FlowRecord;
}

export interface FlowSnapshotPayload {
  watermark: number;
  records: readonly FlowRecord[];
}

export interface UdpUpstreamStats {
  active_associations: number;
  created_associations: number;
  reused_associations: number;
  closed_associations: number;
  idle_timeouts: number;
  dropped_associations: number;
  failed_association_attempts: number;
  send_failures: number;
  recv_failures: number;
  packets_sent: number;
  packets_received: number;
}

export interface StatsSnapshot {
  active_sessions: number;
  total_started: number;
  completed_sessions: number;
  failed_sessions: number;
  blocked_sessions: number;
  direct_sessions: number;
  chained_sessions: number;
  bytes_up: number;
  bytes_down: number;
  udp_upstream: UdpUpstreamStats;
}

/** An event before the bus gives it a sequence and an envelope. */
export interface BusEvent<P extends object = object> {
  event_type: EventType;
  payload: P;
  /** Defaults to the publish time. */
  occurred_at_unix_ms?: number;
  principal_key?: string | null;
  /**
   * Adds the payload's JSON to the envelope's text, when its publisher writes it (flow
   * events): written straight into the envelope, it is not made as a string of its own
   * first and copied. Without it the bus serializes `payload`.
   */
  writePayload?: (out: Pieces) => void;
}
