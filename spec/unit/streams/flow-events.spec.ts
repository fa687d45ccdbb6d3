import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowLifecyclePayload, FlowRecord, FlowResult, FlowUpdatedPayload } from '../../../streams/contract.js';
import { flowEvent } from '../../../streams/flow-events.js';
import { flowTransition } from '../../../actors/flows/flow-logic.js';
import { AUTH, DIRECT_OK, PATH, ROUTE, T0, activeRecord, openingRecord, traffic } from '../flows/fixtures.js';

const LEGACY_KEYS = ['flow_id', 'network', 'inbound', 'auth', 'target', 'route', 'policy', 'outbound', 'traffic', 'timing', 'outcome', 'record'];

function completedRecord(result: FlowResult, at = T0 + 4000): FlowRecord {
  const moving = flowTransition(activeRecord(), { type: 'traffic', at: T0 + 1000, traffic: traffic(100, 900) });
  return flowTransition(moving, { type: 'completed', at, traffic: traffic(120, 1000), result });
}

test('flow.started carries the legacy fields of an opening flow and the record', () => {
  const record = { ...openingRecord(), target: { host: 'example.com', port: 443, sniffed_host: 'sni.example' } };
  const event = flowEvent({ kind: 'started', record, auth: AUTH });
  assert.is(event.event_type, 'flow.started');
  assert.is(event.principal_key, 'alice');
  assert.is(event.occurred_at_unix_ms, undefined, 'the bus stamps the publish time');
  assert.equal(event.payload, {
    flow_id: 'f-1',
    network: 'tcp',
    inbound: { tag: 'mixed-in', protocol: 'socks5' },
    auth: AUTH,
    target: { host: 'example.com', port: 443 },
    route: { mode: 'rule', target: null },
    policy: null,
    outbound: null,
    traffic: { bytes_up: 0, bytes_down: 0, packets_up: null, packets_down: null },
    timing: { started_at_unix_ms: T0, ended_at_unix_ms: null, duration_ms: null },
    outcome: null,
    record,
  } satisfies FlowLifecyclePayload);
});

test('flow.routed carries the decided route target and the outbound', () => {
  const record = flowTransition(openingRecord(), { type: 'routed', at: T0 + 5, route: ROUTE, path: PATH, resolved_ip: '10.1.2.3' });
  const event = flowEvent({ kind: 'routed', record, auth: AUTH });
  const payload = event.payload as FlowLifecyclePayload;
  assert.is(event.event_type, 'flow.routed');
  assert.is(event.occurred_at_unix_ms, undefined);
  assert.equal(Object.keys(payload), LEGACY_KEYS);
  assert.equal(payload.route, { mode: 'rule', target: 'proxy' });
  assert.equal(payload.outbound, { tag: 'hop-a', protocol: 'socks' });
  assert.equal(payload.target, { host: 'example.com', port: 443 });
  assert.equal(payload.traffic, { bytes_up: 0, bytes_down: 0, packets_up: null, packets_down: null });
  assert.is(payload.record, record);
  assert.is(payload.record.state, 'active');
});

test('flow.completed carries all six byte counters, the whole time window and the outcome', () => {
  const record = completedRecord(DIRECT_OK);
  const event = flowEvent({ kind: 'completed', record, auth: AUTH });
  const payload = event.payload as FlowLifecyclePayload;
  assert.is(event.event_type, 'flow.completed');
  assert.equal(Object.keys(payload), LEGACY_KEYS);
  assert.equal(payload.traffic, {
    bytes_up: 120,
    bytes_down: 1000,
    inbound_rx_bytes: 240,
    inbound_tx_bytes: 3000,
    outbound_rx_bytes: 5000,
    outbound_tx_bytes: 840,
    packets_up: null,
    packets_down: null,
  });
  assert.equal(payload.timing, { started_at_unix_ms: T0, ended_at_unix_ms: T0 + 4000, duration_ms: 4000 });
  assert.is(payload.outcome, 'direct_relayed');
  assert.is(payload.record, record);
  assert.equal(payload.record.result, DIRECT_OK);
});

test('flow.completed occurs at the flow end time, not at publish time', () => {
  const event = flowEvent({ kind: 'completed', record: completedRecord(DIRECT_OK, T0 + 7777), auth: AUTH });
  assert.is(event.occurred_at_unix_ms, T0 + 7777);
});

test('close_reason appears only when the flow has one', () => {
  const idle = flowEvent({
    kind: 'completed',
    record: completedRecord({ outcome: 'direct_relayed', close_reason: 'idle_timeout', failure: null }),
    auth: AUTH,
  }).payload as FlowLifecyclePayload;
  assert.equal(Object.keys(idle), [...LEGACY_KEYS, 'close_reason']);
  assert.is(idle.close_reason, 'idle_timeout');
  const failure = { stage: 'connect', code: 'DIAL_REFUSED', message: 'refused' };
  const failed = flowEvent({
    kind: 'completed',
    record: completedRecord({ outcome: 'failed', close_reason: 'upstream_error', failure }),
    auth: AUTH,
  }).payload as FlowLifecyclePayload;
  assert.is(failed.close_reason, 'upstream_error');
  assert.is(failed.outcome, 'failed');
  assert.equal(failed.record.result?.failure, failure);
  const plain = flowEvent({ kind: 'completed', record: completedRecord(DIRECT_OK), auth: AUTH }).payload;
  assert.not.ok('close_reason' in plain);
});

test('a blocked flow completes with its route target and no outbound', () => {
  const record = flowTransition(openingRecord(), {
    type: 'completed',
    at: T0 + 2,
    traffic: traffic(0, 0),
    result: { outcome: 'blocked', close_reason: null, failure: null },
    route: { ...ROUTE, target: 'block', selection_chain: ['block'] },
  });
  const payload = flowEvent({ kind: 'completed', record, auth: AUTH }).payload as FlowLifecyclePayload;
  assert.equal(payload.route, { mode: 'rule', target: 'block' });
  assert.is(payload.outbound, null);
  assert.is(payload.outcome, 'blocked');
  assert.not.ok('close_reason' in payload);
});

test('flow.updated carries exactly the contract fields, sampled at the record time', () => {
  const record = flowTransition(activeRecord(), { type: 'traffic', at: T0 + 1000, traffic: traffic(1000, 2000) });
  const event = flowEvent({ kind: 'traffic', record, auth: AUTH });
  assert.is(event.event_type, 'flow.updated');
  assert.is(event.occurred_at_unix_ms, T0 + 1000);
  assert.is(event.principal_key, 'alice');
  assert.equal(event.payload, {
    flow_id: 'f-1',
    network: 'tcp',
    inbound_tag: 'mixed-in',
    outbound_tag: 'hop-a',
    bytes_up: 1000,
    bytes_down: 2000,
    inbound_rx_bytes: 2000,
    inbound_tx_bytes: 6000,
    outbound_rx_bytes: 10000,
    outbound_tx_bytes: 7000,
    throughput_up_bps: 8000,
    throughput_down_bps: 16000,
    snapshot_at_unix_ms: T0 + 1000,
    record,
  } satisfies FlowUpdatedPayload);
});

test('flow.updated of a flow not yet routed has a null outbound_tag', () => {
  const record = flowTransition(openingRecord(), { type: 'traffic', at: T0 + 1000, traffic: traffic(1, 0) });
  const payload = flowEvent({ kind: 'traffic', record, auth: AUTH }).payload as FlowUpdatedPayload;
  assert.is(payload.outbound_tag, null);
});

test('an anonymous flow gives a null principal_key', () => {
  const auth = { scheme: 'noauth', principal_key: null, attributes: {} };
  assert.is(flowEvent({ kind: 'started', record: openingRecord(), auth }).principal_key, null);
});

test.run();
