import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../streams/contract.js';
import { rawExchange } from '../support/raw-client.js';
import { assertStatsFields } from '../support/stats-fields.js';
import { startNode, type TestNode } from '../support/api-node.js';
import { loudBefore } from '../support/loud-before.js';

let node: TestNode;

loudBefore(test, async () => {
  node = await startNode({ maxBodyBytes: 4096 });
});
test.after(async () => {
  await node.stop();
});

function problemOf(code: string, status: number, title: string, detail: string): object {
  return { type: `urn:weir:problem:${code.toLowerCase().replaceAll('_', '-')}`, title, status, detail, code };
}

test('health, runtime and stats answer JSON', async () => {
  const health = await node.api('/api/v1/health');
  assert.is(health.status, 200);
  assert.is(health.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.is(health.json.status, 'ok');
  const runtime = await node.api('/api/v1/runtime');
  assert.is(runtime.json.log_level, 'debug');
  assert.is(runtime.json.log_files.length, 1);
  assert.match(runtime.json.log_files[0], /weir\.log$/);
  assert.is(typeof runtime.json.pid, 'number');
  assert.equal(runtime.json.mode, { mode: 'rule', global_target: null });
  assert.equal(Object.keys(runtime.json.memory), ['rss_bytes', 'heap_used_bytes', 'heap_total_bytes', 'external_bytes']);
  assert.ok(runtime.json.memory.heap_used_bytes > 0 && runtime.json.memory.rss_bytes > runtime.json.memory.heap_used_bytes, JSON.stringify(runtime.json.memory));
  const stats = await node.api('/api/v1/stats');
  assertStatsFields(stats.json);
});

test('flows, sinks and policies are lists inside an object', async () => {
  assert.equal((await node.api('/api/v1/flows')).json, { flows: [] });
  assert.equal((await node.api('/api/v1/sinks')).json, { sinks: [] });
  assert.equal((await node.api('/api/v1/policies')).json, {
    policies: [
      { tag: 'auto', kind: 'url_test', members: ['direct'], selected: 'direct' },
      { tag: 'proxy', kind: 'selector', members: ['direct', 'block', 'auto'], selected: 'direct' },
    ],
  });
});

test('an unknown flow is 404 FLOW_NOT_FOUND', async () => {
  const res = await node.api('/api/v1/flows/nope-1');
  assert.is(res.status, 404);
  assert.is(res.headers.get('content-type'), 'application/problem+json; charset=utf-8');
  assert.equal(res.json, problemOf('FLOW_NOT_FOUND', 404, 'No such active flow', 'no active flow "nope-1"'));
  const close = await node.api('/api/v1/flows/nope-1/close', { method: 'POST' });
  assert.equal(close.json, problemOf('FLOW_NOT_FOUND', 404, 'No such active flow', 'no active flow "nope-1"'));
});

test('an unknown path or method is 404 NOT_FOUND', async () => {
  const res = await node.api('/api/v1/nothing');
  assert.equal(res.json, problemOf('NOT_FOUND', 404, 'No such resource', 'no GET /api/v1/nothing'));
  assert.is((await node.api('/api/v1/flows', { method: 'DELETE' })).status, 404);
  // The root itself is the Clash API's (GET / says hello); other root paths are nobody's.
  assert.is((await node.api('/nothing', {})).json.code, 'NOT_FOUND');
});

test('events replays the ring with since, limit and types, never a snapshot', async () => {
  await node.api('/api/v1/policies/proxy/select', { method: 'POST', body: { member: 'block' } });
  await node.api('/api/v1/policies/proxy/select', { method: 'POST', body: { member: 'direct' } });
  const all = await node.api('/api/v1/events?since=0&limit=10000');
  assert.equal(Object.keys(all.json), ['events', 'oldest_sequence', 'last_sequence', 'replay_gap']);
  assert.is(all.json.replay_gap, null, 'the ring holds every event after 0');
  assert.is(all.headers.get('weir-replay-gap'), null);
  const events = all.json.events as Envelope[];
  assert.equal(events.map((e) => e.sequence), events.map((_, i) => i + 1));
  assert.is(all.json.oldest_sequence, 1);
  assert.ok(all.json.last_sequence >= events.length);
  assert.not.ok(events.some((e) => e.event_type === 'flow.snapshot'));
  assert.is(events[0]!.event_type, 'engine.started');

  const two = await node.api('/api/v1/events?since=0&limit=2');
  assert.equal((two.json.events as Envelope[]).map((e) => e.sequence), [1, 2]);
  const later = await node.api('/api/v1/events?since=1&limit=1');
  assert.equal((later.json.events as Envelope[]).map((e) => e.sequence), [2]);
  const selected = await node.api('/api/v1/events?types=policy.selected');
  assert.equal(
    (selected.json.events as Envelope[]).map((e) => e.payload),
    [
      { policy_tag: 'proxy', policy_kind: 'selector', selected: 'block', previous: 'direct' },
      { policy_tag: 'proxy', policy_kind: 'selector', selected: 'direct', previous: 'block' },
    ],
  );
  const snap = await node.api('/api/v1/events?types=flow.snapshot');
  assert.equal(snap.json.events, []);
});

test('events refuses malformed numbers and unknown types with 400', async () => {
  const cases: [string, string][] = [
    ['since=-1', 'since must be an integer from 0 to 9007199254740991'],
    ['since=1.5', 'since must be an integer from 0 to 9007199254740991'],
    ['limit=0', 'limit must be an integer from 1 to 10000'],
    ['limit=10001', 'limit must be an integer from 1 to 10000'],
    ['limit=ten', 'limit must be an integer from 1 to 10000'],
    ['since=1&since=2', 'since must be given once'],
    ['types=flow.nope', 'unknown event type "flow.nope"'],
  ];
  for (const [query, detail] of cases) {
    const res = await node.api(`/api/v1/events?${query}`);
    assert.is(res.status, 400, query);
    assert.is(res.json.code, 'BAD_REQUEST');
    assert.is(res.json.detail, detail);
  }
});

test('log-level changes the level at run time and refuses unknown levels with 422', async () => {
  const set = await node.api('/api/v1/log-level', { method: 'PUT', body: { level: 'info' } });
  assert.is(set.status, 200);
  assert.equal(set.json, { log_level: 'info' });
  assert.is((await node.api('/api/v1/runtime')).json.log_level, 'info');
  const bad = await node.api('/api/v1/log-level', { method: 'PUT', body: { level: 'loud' } });
  assert.is(bad.status, 422);
  assert.equal(bad.json, problemOf('INVALID_BODY', 422, 'Request body fails validation', 'log level must be one of trace, debug, info, warn, error, fatal'));
  await node.api('/api/v1/log-level', { method: 'PUT', body: { level: 'debug' } });
});

test('a body that fails validation is 422 INVALID_BODY with every reason', async () => {
  const none = await node.api('/api/v1/policies/proxy/select', { method: 'POST', body: '' });
  assert.is(none.status, 422);
  assert.is(none.json.detail, 'member: Invalid input: expected string, received undefined');
  const wrong = await node.api('/api/v1/policies/proxy/select', { method: 'POST', body: { member: 3, extra: true } });
  assert.is(wrong.status, 422);
  assert.is(wrong.json.code, 'INVALID_BODY');
  assert.is(wrong.json.detail, 'member: Invalid input: expected string, received number; body: Unrecognized key: "extra"');
});

test('malformed JSON is 400 BAD_REQUEST, without echoing the body', async () => {
  const res = await node.api('/api/v1/mode', { method: 'PUT', body: '{"mode": "rule", "secret-ish": tru' });
  assert.is(res.status, 400);
  assert.equal(res.json, problemOf('BAD_REQUEST', 400, 'Malformed request', 'the request body is not valid JSON'));
});

test('a body over max_body_bytes is 413 BODY_TOO_LARGE whatever its content type', async () => {
  const big = JSON.stringify({ mode: 'rule', pad: 'x'.repeat(5000) });
  const expected = problemOf('BODY_TOO_LARGE', 413, 'Request body too large', 'the request body exceeds control.max_body_bytes');
  const json = await node.api('/api/v1/mode', { method: 'PUT', body: big });
  assert.is(json.status, 413);
  assert.equal(json.json, expected);
  const text = await node.api('/api/v1/mode', { method: 'PUT', body: big, headers: { 'content-type': 'text/plain' } });
  assert.equal(text.json, expected);
  const ok = await node.api('/api/v1/mode', { method: 'PUT', body: { mode: 'rule' } });
  assert.is(ok.status, 200, 'the connection and node go on');
});

test('a declared Content-Length over max_body_bytes is 413 BODY_TOO_LARGE before the body is sent', async () => {
  const head = `PUT /api/v1/mode HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${node.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n`;
  // A part of the declared body, never the rest: only an answer that does not wait for it comes.
  const res = await rawExchange(Number(new URL(node.baseUrl).port), Buffer.from(head + 'x'.repeat(200_000)));
  const text = res.data.toString();
  assert.ok(text.startsWith('HTTP/1.1 413 '), text.slice(0, 200) || 'no answer');
  assert.match(text, /\r\nconnection: close\r\n/i);
  const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
  assert.equal(body, problemOf('BODY_TOO_LARGE', 413, 'Request body too large', 'the request body exceeds control.max_body_bytes'));
  assert.is((await node.api('/api/v1/health')).status, 200, 'the node goes on');
});

test('a path that does not decode or a body that does not inflate is 400 BAD_REQUEST, not an internal error', async () => {
  const expected = problemOf('BAD_REQUEST', 400, 'Malformed request', 'the request cannot be read (check its path, Content-Type, charset and encoding)');
  const path = await node.api('/api/v1/flows/%ZZ/close', { method: 'POST' });
  assert.equal([path.status, path.json], [400, expected]);
  const gzip = await node.api('/api/v1/mode', { method: 'PUT', body: '\x1f\x8b\x08garbage', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
  assert.equal([gzip.status, gzip.json], [400, expected]);
});

test.run();
