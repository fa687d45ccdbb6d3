import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WAIT_MS } from '../support/far-bound.js';
import { waitFor } from '../support/wait-for.js';
import { SseClient, WsClient } from '../support/event-clients.js';
import { startNode, type TestNode } from '../support/api-node.js';
import { loudBefore } from '../support/loud-before.js';

let node: TestNode;

loudBefore(test, async () => {
  // Far more wrong keys than the throttle takes: this spec is about each refusal (control-auth-throttle.spec is about the throttle).
  node = await startNode({ authThrottle: { maxFailures: 1_000_000 } });
});
test.after(async () => {
  await node.stop();
});

const ENDPOINTS: { method: string; path: string; body?: unknown }[] = [
  { method: 'GET', path: '/api/v1/health' },
  { method: 'GET', path: '/api/v1/runtime' },
  { method: 'GET', path: '/api/v1/stats' },
  { method: 'GET', path: '/api/v1/flows' },
  { method: 'GET', path: '/api/v1/flows/f-1' },
  { method: 'GET', path: '/api/v1/sinks' },
  { method: 'GET', path: '/api/v1/events' },
  { method: 'GET', path: '/api/v1/events/stream' },
  { method: 'GET', path: '/api/v1/policies' },
  { method: 'POST', path: '/api/v1/flows/f-1/close' },
  { method: 'POST', path: '/api/v1/policies/proxy/select', body: { member: 'block' } },
  { method: 'POST', path: '/api/v1/policies/auto/probe' },
  { method: 'PUT', path: '/api/v1/mode', body: { mode: 'global', target: 'block' } },
  { method: 'PUT', path: '/api/v1/log-level', body: { level: 'trace' } },
  { method: 'GET', path: '/api/v1/no-such-thing' },
];

const MISSING = {
  type: 'urn:weir:problem:unauthorized',
  title: 'Missing or wrong API key',
  status: 401,
  detail: 'send the API key as "Authorization: Bearer <key>"',
  code: 'UNAUTHORIZED',
};

test('every endpoint answers 401 problem+json without a key', async () => {
  for (const { method, path, body } of ENDPOINTS) {
    const res = await node.api(path, { method, body, key: null });
    assert.is(res.status, 401, `${method} ${path}`);
    assert.is(res.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    assert.is(res.headers.get('www-authenticate'), 'Bearer realm="weir"');
    assert.equal(res.json, MISSING);
  }
});

test('every endpoint answers 401 with a wrong key, a near-miss key or another scheme', async () => {
  for (const key of ['wrong', `${node.apiKey}x`, node.apiKey.slice(0, -1)]) {
    for (const { method, path, body } of ENDPOINTS) {
      const res = await node.api(path, { method, body, key });
      assert.is(res.status, 401, `${method} ${path}`);
      assert.is(res.headers.get('www-authenticate'), 'Bearer realm="weir", error="invalid_token"');
      assert.equal(res.json, { ...MISSING, detail: 'the API key does not match' });
    }
  }
  const basic = await node.api('/api/v1/stats', { key: null, headers: { authorization: `Basic ${node.apiKey}` } });
  assert.is(basic.status, 401);
});

test('refused writes change nothing', async () => {
  const policies = await node.api('/api/v1/policies');
  assert.is(policies.json.policies.find((p: { tag: string }) => p.tag === 'proxy').selected, 'direct');
  const runtime = await node.api('/api/v1/runtime');
  assert.is(runtime.json.mode.mode, 'rule');
  assert.is(runtime.json.log_level, 'debug');
  const events = await node.api('/api/v1/events?types=policy.selected');
  assert.equal(events.json.events, []);
});

test('an EventSource without the key or with a wrong one gets 401 and stops', async () => {
  for (const key of [null, 'wrong']) {
    const client = new SseClient(`${node.baseUrl}/api/v1/events/stream`, { key });
    await waitFor(() => client.errors.length > 0, WAIT_MS, 'refusal');
    assert.is(client.errors[0]!.code, 401);
    assert.is(client.readyState, 2, 'CLOSED: no reconnect');
    assert.equal(client.frames, []);
    client.close();
  }
});

test('a WebSocket upgrade without the key, with a wrong header or a wrong token gets 401', async () => {
  const url = `${node.wsUrl}/api/v1/events/ws`;
  const clients = [new WsClient(url), new WsClient(url, { key: 'wrong' }), new WsClient(`${url}?token=wrong`)];
  await waitFor(() => clients.every((c) => c.unexpected !== null), WAIT_MS, 'refusals');
  assert.equal(clients.map((c) => c.unexpected), [401, 401, 401]);
  assert.ok(clients.every((c) => c.envelopes.length === 0));
});

test('the right key is accepted in the header (scheme in any case) and, for WebSocket, as ?token=', async () => {
  const res = await node.api('/api/v1/stats', { key: null, headers: { authorization: `bearer ${node.apiKey}` } });
  assert.is(res.status, 200);
  const client = new WsClient(`${node.wsUrl}/api/v1/events/ws?token=${encodeURIComponent(node.apiKey)}`);
  await waitFor(() => client.envelopes.length >= 1, WAIT_MS, 'snapshot');
  assert.is(client.envelopes[0]!.event_type, 'flow.snapshot');
  client.close();
});

test('health needs no key only when health_requires_key is false', async () => {
  const open = await startNode({ healthRequiresKey: false });
  try {
    const health = await open.api('/api/v1/health', { key: null });
    assert.is(health.status, 200);
    assert.is(health.json.status, 'ok');
    assert.is((await open.api('/api/v1/runtime', { key: null })).status, 401);
  } finally {
    await open.stop();
  }
});

test('the API key appears in no response body and no log line, ?token= included', async () => {
  for (const body of node.bodies) assert.not.ok(body.includes(node.apiKey));
  const log = await node.logText();
  assert.ok(log.includes('"path":"/api/v1/events/ws"'), 'the WebSocket requests were logged');
  for (const secret of node.secrets) assert.not.ok(log.includes(secret));
  assert.not.ok(log.includes('token='));
  assert.not.ok(log.toLowerCase().includes('authorization'));
});

test.run();
