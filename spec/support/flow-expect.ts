import * as assert from 'uvu/assert';
import type { Endpoint, FlowAuth, FlowFailure, FlowRecord, MatchedRule, Outcome, TagProtocol } from '../../streams/contract.js';
import type { FlowLifecycle } from './flow-lifecycle.js';
import type { JsonEnvelope } from './jsonl.js';

/** What a spec knows about one of its connections. */
export interface FlowExpectation {
  inbound: TagProtocol;
  auth: FlowAuth;
  target: Endpoint;
  /** The outbound tag routing chose and the rule that decided. */
  route: { target: string; matched_rule: MatchedRule };
  /** The leaf outbound of a relayed flow; undefined for a flow that never became active. */
  outbound?: TagProtocol;
  outcome: Outcome;
  close_reason?: 'manual' | 'idle_timeout' | 'upstream_error';
  /** Checked field by field; `message` only for being a non-empty string. */
  failure?: Omit<FlowFailure, 'message'>;
}

/** The legacy top-level fields of flow.started/routed/completed, as the contract lists them. */
const LEGACY_KEYS = ['auth', 'flow_id', 'inbound', 'network', 'outbound', 'outcome', 'policy', 'record', 'route', 'target', 'timing', 'traffic'];
const RECORD_KEYS = ['flow_id', 'inbound', 'network', 'path', 'revision', 'route', 'source', 'state', 'target', 'throughput', 'timing', 'traffic'];
const TRAFFIC_KEYS = ['bytes_down', 'bytes_up', 'inbound_rx_bytes', 'inbound_tx_bytes', 'outbound_rx_bytes', 'outbound_tx_bytes', 'packets_down', 'packets_up'];

export function recordOf(e: JsonEnvelope): FlowRecord {
  return e.payload['record'] as FlowRecord;
}

/** Every lifecycle field of one flow against what the spec expects. */
export function assertFlow(flow: FlowLifecycle, expect: FlowExpectation): void {
  const { started, routed, completed } = flow;
  for (const e of [started, routed, ...flow.updated, completed]) if (e) assertCommon(flow, e, expect);
  assertStarted(started, expect);
  let last = recordOf(started);
  if (expect.outbound) {
    assert.ok(routed, 'a relayed flow has flow.routed');
    assertRouted(routed, expect, last);
    last = recordOf(routed);
  } else {
    assert.is(routed, undefined, 'a flow that never became active has no flow.routed');
  }
  for (const u of flow.updated) {
    assert.ok(recordOf(u).revision > last.revision, 'flow.updated revisions increase');
    last = recordOf(u);
  }
  assertCompleted(completed, expect, last);
}

/** A flow refused before any dial: as assertFlow expects, with nothing on the outbound side and no resolved_ip. */
export function assertUndialled(flow: FlowLifecycle, expect: FlowExpectation): void {
  assertFlow(flow, expect);
  const r = recordOf(flow.completed);
  assert.equal([r.traffic.outbound_rx_bytes, r.traffic.outbound_tx_bytes, r.target.resolved_ip], [0, 0, undefined], 'nothing was dialled');
}

function assertCommon(flow: FlowLifecycle, e: JsonEnvelope, expect: FlowExpectation): void {
  const r = recordOf(e);
  assert.is(e.principal_key, expect.auth.principal_key, `${e.event_type}: envelope principal_key`);
  assert.is(r.flow_id, flow.flowId);
  assert.is(r.network, 'tcp');
  assert.equal(r.inbound, expect.inbound, `${e.event_type}: record.inbound`);
  assert.is(r.source?.ip, '127.0.0.1', `${e.event_type}: record.source.ip`);
  assert.ok(Number.isInteger(r.source?.port) && r.source!.port > 0, `${e.event_type}: record.source.port`);
  // The address stays; the process lookup may add its fields in a later revision.
  const address = (rec: FlowRecord): unknown => rec.source && { ip: rec.source.ip, port: rec.source.port };
  assert.equal(address(r), address(recordOf(flow.started)), `${e.event_type}: the source address stays the same`);
  assert.is(r.target.host, expect.target.host);
  assert.is(r.target.port, expect.target.port);
  if (e.event_type === 'flow.updated') return;
  assert.is(e.payload['flow_id'], flow.flowId);
  assert.is(e.payload['network'], 'tcp');
  assert.equal(e.payload['inbound'], expect.inbound);
  assert.equal(e.payload['auth'], expect.auth, `${e.event_type}: auth`);
  assert.equal(e.payload['target'], expect.target);
  assert.is(e.payload['policy'], null);
  assert.equal(e.payload['outbound'], r.path.outbound, `${e.event_type}: legacy outbound is the record's`);
  assert.equal(e.payload['route'], { mode: r.route.mode, target: r.route.target });
  assert.equal(
    e.payload['timing'],
    { started_at_unix_ms: r.timing.started_at_unix_ms, ended_at_unix_ms: r.timing.ended_at_unix_ms, duration_ms: r.timing.duration_ms },
    `${e.event_type}: legacy timing is the record's`,
  );
}

function assertStarted(e: JsonEnvelope, expect: FlowExpectation): void {
  const r = recordOf(e);
  assert.equal(Object.keys(e.payload).sort(), LEGACY_KEYS, 'flow.started legacy fields');
  assert.equal(Object.keys(r).sort(), RECORD_KEYS, 'flow.started record fields');
  assert.is(r.state, 'opening');
  assert.ok(Number.isInteger(r.revision) && r.revision >= 1);
  assert.equal(r.target, expect.target, 'an opening flow has only host and port');
  assert.equal(r.route, { mode: 'rule', action: 'pending', target: null, matched_rule: null, selection_chain: [] });
  assert.equal(r.path, { outbound: null, remote: null, relay_chain: [] });
  assert.equal(r.timing.ended_at_unix_ms, null);
  assert.equal(r.timing.duration_ms, null);
  assert.equal(e.payload['traffic'], { bytes_up: 0, bytes_down: 0, packets_up: null, packets_down: null });
  assert.is(e.payload['outcome'], null);
}

function assertRouted(e: JsonEnvelope, expect: FlowExpectation, before: FlowRecord): void {
  const r = recordOf(e);
  assert.equal(Object.keys(e.payload).sort(), LEGACY_KEYS, 'flow.routed legacy fields');
  assert.equal(Object.keys(r).sort(), RECORD_KEYS, 'flow.routed record fields');
  assert.is(r.state, 'active');
  assert.ok(r.revision > before.revision, 'flow.routed bumps the revision');
  assert.equal(r.route, { mode: 'rule', action: 'route', ...expect.route, selection_chain: [expect.route.target] });
  assert.equal(r.path, { outbound: expect.outbound, remote: expect.target, relay_chain: [] });
  assert.equal(Object.keys(e.payload['traffic'] as object).sort(), ['bytes_down', 'bytes_up', 'packets_down', 'packets_up']);
  assert.is(e.payload['outcome'], null);
  assert.is(r.timing.ended_at_unix_ms, null);
}

function assertCompleted(e: JsonEnvelope, expect: FlowExpectation, before: FlowRecord): void {
  const r = recordOf(e);
  const closeKey = expect.close_reason ? ['close_reason'] : [];
  assert.equal(Object.keys(e.payload).sort(), [...LEGACY_KEYS, ...closeKey].sort(), 'flow.completed legacy fields');
  assert.equal(Object.keys(r).sort(), [...RECORD_KEYS, 'result'].sort(), 'flow.completed record fields');
  assert.is(r.state, 'completed');
  assert.ok(r.revision > before.revision, 'flow.completed bumps the revision');
  assert.equal(r.route, { mode: 'rule', action: 'route', ...expect.route, selection_chain: [expect.route.target] });
  assert.equal(r.path.outbound, expect.outbound ?? null);
  assert.is(e.payload['outcome'], expect.outcome);
  assert.is(e.payload['close_reason'], expect.close_reason);
  assert.is(r.result?.outcome, expect.outcome);
  assert.is(r.result?.close_reason, expect.close_reason ?? null);
  if (expect.failure) {
    const { message, ...rest } = r.result?.failure ?? ({} as FlowFailure);
    assert.equal(rest, expect.failure, 'result.failure');
    assert.ok(typeof message === 'string' && message.length > 0, 'result.failure.message');
  } else {
    assert.is(r.result?.failure, null);
  }
  assert.equal(Object.keys(e.payload['traffic'] as object).sort(), TRAFFIC_KEYS, 'flow.completed legacy traffic');
  assert.equal(e.payload['traffic'], r.traffic);
  const { started_at_unix_ms: startedAt, ended_at_unix_ms: endedAt, duration_ms: duration } = r.timing;
  assert.ok(endedAt !== null && startedAt <= endedAt, 'started <= ended');
  assert.is(duration, endedAt - startedAt, 'duration = ended - started');
  assert.is(e.occurred_at_unix_ms, endedAt, 'flow.completed occurs at the flow end');
}

export const NO_AUTH: FlowAuth = { scheme: 'noauth', principal_key: null, attributes: {} };
export const DIRECT: TagProtocol = { tag: 'direct', protocol: 'direct' };
/** The decision when no rule matched: route.final, reported as index -1. */
export const FINAL_DIRECT = { target: 'direct', matched_rule: { index: -1, condition: 'final' } };
