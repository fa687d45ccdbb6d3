import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowLifecyclePayload, FlowRecord } from '../../../streams/contract.js';
import { flowEvent } from '../../../streams/flow-events.js';
import { flowRecordJson, lifecyclePayloadWriter } from '../../../streams/flow-json.js';
import { Pieces } from '../../../streams/text-pieces.js';
import { flowTransition } from '../../../actors/flows/flow-logic.js';
import { AUTH, PATH, ROUTE, T0, openingRecord, traffic } from '../flows/fixtures.js';

/** Every optional field present, none of them null where a value is allowed. */
const FULL: Required<FlowRecord> = {
  flow_id: 'f-"quoted"\\-1',
  revision: 7,
  state: 'completed',
  network: 'udp',
  inbound: { tag: 'mixed-in', protocol: 'socks5' },
  source: { ip: '::1', port: 50000, process_id: 4242, process_name: 'curl', process_path: '/usr/bin/curl' },
  target: { host: 'exämple.com', port: 443, resolved_ip: '10.0.0.1', sniffed_host: 'sni.example' },
  route: ROUTE,
  path: { ...PATH, relay_chain: [{ tag: 'hop-a', protocol: 'socks', server: '127.0.0.1', port: 1080 }] },
  traffic: { ...traffic(120, 1000), packets_up: 3, packets_down: 4 },
  throughput: { upload_bps: 960, download_bps: 8000, sampled_at_unix_ms: T0 + 1000 },
  timing: { started_at_unix_ms: T0, last_activity_at_unix_ms: T0 + 1000, ended_at_unix_ms: T0 + 4000, duration_ms: 4000 },
  result: {
    outcome: 'failed',
    close_reason: 'upstream_error',
    failure: { stage: 'relay', code: 'RELAY_RESET', message: 'connection reset\nby peer', remote: { host: 'exämple.com', port: 443 } },
  },
};

const parsed = (json: string): unknown => JSON.parse(json);
const lifecyclePayloadJson = (payload: FlowLifecyclePayload): string => new Pieces().joined(lifecyclePayloadWriter(payload));

test('a record with every field written is the record JSON.stringify writes', () => {
  assert.equal(parsed(flowRecordJson(FULL)), parsed(JSON.stringify(FULL)));
});

test('a record without the optional fields leaves them out, as JSON.stringify does', () => {
  const record = openingRecord();
  assert.is(record.source, undefined);
  assert.is(record.result, undefined);
  const json = flowRecordJson(record);
  assert.equal(parsed(json), parsed(JSON.stringify(record)));
  assert.not.ok(json.includes('"source"') || json.includes('"result"'));
});

test('each lifecycle payload, legacy fields and close_reason included, is the one JSON.stringify writes', () => {
  const opening = openingRecord();
  const routed = flowTransition(opening, { type: 'routed', at: T0 + 5, route: ROUTE, path: PATH, resolved_ip: '10.1.2.3' });
  const completed = flowTransition(routed, {
    type: 'completed',
    at: T0 + 900,
    traffic: traffic(10, 20),
    result: { outcome: 'direct_relayed', close_reason: 'idle_timeout', failure: null },
  });
  const kinds = [
    ['started', opening],
    ['routed', routed],
    ['completed', completed],
  ] as const;
  for (const [kind, record] of kinds) {
    const payload = flowEvent({ kind, record, auth: AUTH }).payload as FlowLifecyclePayload;
    assert.equal(parsed(lifecyclePayloadJson(payload)), parsed(JSON.stringify(payload)), kind);
  }
  assert.equal((parsed(lifecyclePayloadJson(flowEvent({ kind: 'completed', record: completed, auth: AUTH }).payload as FlowLifecyclePayload)) as FlowLifecyclePayload).close_reason, 'idle_timeout');
});

test('an auth with attributes, and strings that need escaping, are written as JSON.stringify writes them', () => {
  const auth = { scheme: 'http_basic', principal_key: 'p"\\k', attributes: { 'te"am': 'a\u0001b', region: 'eu\ud800' } };
  const opening = openingRecord();
  const payload = flowEvent({ kind: 'started', record: opening, auth }).payload as FlowLifecyclePayload;
  const json = lifecyclePayloadJson(payload);
  assert.equal(parsed(json), parsed(JSON.stringify(payload)));
  assert.ok(json.includes(JSON.stringify(auth)));
});

test('flow events carry their payload JSON, and it is the payload', () => {
  const event = flowEvent({ kind: 'started', record: openingRecord(), auth: AUTH });
  assert.ok(event.writePayload);
  assert.equal(parsed(new Pieces().joined(event.writePayload)), parsed(JSON.stringify(event.payload)));
});

test.run();
