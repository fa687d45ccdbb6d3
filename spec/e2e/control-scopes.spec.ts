import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WRITE_OPERATIONS } from '../../actors/control/write-operations.js';
import type { ScopedRoute } from '../../http/auth/route-table.js';
import { startNode, type TestNode } from '../support/api-node.js';
import { loudBefore } from '../support/loud-before.js';

let node: TestNode;

loudBefore(test, async () => {
  node = await startNode();
});
test.after(async () => {
  await node.stop();
});

/** A path to call for a route: each `:name` parameter given a value no resource has. */
const callable = (route: ScopedRoute): string => route.path.replace(/:\w+/g, 'no-such');

/** The Clash API's paths are not under /api/v1; its refusals are `{message, code}`. */
const isClash = (route: ScopedRoute): boolean => !route.path.startsWith('/api/v1') && route.path !== '/metrics';

const routes = (): ScopedRoute[] => node.routes().filter((r) => r.method !== 'HEAD');
const http = (): ScopedRoute[] => routes().filter((r) => r.method !== 'WS');

async function call(route: ScopedRoute, key: string): Promise<{ status: number; json: Record<string, unknown> }> {
  // A stream (SSE, Clash /traffic...) would never end: a key it refuses is answered at once, and that is all a scope check needs.
  const ac = new AbortController();
  const res = await fetch(`${node.baseUrl}${callable(route)}`, {
    method: route.method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: route.method === 'GET' || route.method === 'DELETE' ? undefined : '{}',
    signal: ac.signal,
  });
  const type = res.headers.get('content-type') ?? '';
  const json = res.status === 403 || type.includes('json') && !type.includes('stream') && res.status !== 200 ? ((await res.json()) as Record<string, unknown>) : {};
  ac.abort();
  return { status: res.status, json };
}

test('every route of the listener (REST, Clash, WebSocket) demands a scope', () => {
  const all = routes();
  assert.ok(all.length >= 40, `only ${all.length} routes listed`);
  assert.equal(all.filter((r) => r.scope === null).map((r) => `${r.method} ${r.path}`), [], 'routes without a scope');
  const scopeOf = (method: string, path: string): string | null | undefined => all.find((r) => r.method === method && r.path === path)?.scope;
  // The table, spot by spot; the rest follows from WRITE_OPERATIONS.
  assert.is(scopeOf('GET', '/api/v1/flows'), 'read');
  assert.is(scopeOf('GET', '/api/v1/events/stream'), 'read');
  assert.is(scopeOf('GET', '/metrics'), 'read');
  assert.is(scopeOf('GET', '/api/v1/principals'), 'read');
  assert.is(scopeOf('POST', '/api/v1/policies/:tag/select'), 'operate');
  assert.is(scopeOf('PUT', '/api/v1/mode'), 'operate');
  assert.is(scopeOf('POST', '/api/v1/flows/:flow_id/close'), 'operate');
  assert.is(scopeOf('POST', '/api/v1/policies/:tag/probe'), 'operate');
  assert.is(scopeOf('POST', '/api/v1/config/apply'), 'admin');
  assert.is(scopeOf('POST', '/api/v1/config/reload'), 'admin');
  assert.is(scopeOf('POST', '/api/v1/sinks/:tag/dead-letters/replay'), 'admin');
  assert.is(scopeOf('POST', '/api/v1/principals/reset'), 'admin');
  assert.is(scopeOf('PATCH', '/configs'), 'operate');
  assert.is(scopeOf('PUT', '/proxies/:name'), 'operate');
  assert.is(scopeOf('DELETE', '/connections'), 'operate');
  assert.is(scopeOf('PUT', '/configs'), 'admin');
  assert.is(scopeOf('GET', '/proxies'), 'read');
  assert.is(scopeOf('WS', '/api/v1/events/ws'), 'read');
  assert.is(scopeOf('WS', '/logs'), 'read');
  assert.equal([...new Set(all.map((r) => r.scope))].sort(), ['admin', 'operate', 'read']);
  assert.ok(Object.values(WRITE_OPERATIONS).every((s) => s !== ('read' as string)));
});

for (const [held, refusedOn] of [['read', ['operate', 'admin']], ['operate', ['admin']]] as const) {
  test(`a ${held} key gets 403 OUT_OF_SCOPE on every ${refusedOn.join(' and ')} route`, async () => {
    const targets = http().filter((r) => (refusedOn as readonly string[]).includes(r.scope ?? ''));
    assert.ok(targets.length > 0);
    for (const route of targets) {
      const { status, json } = await call(route, node.keys[held]);
      const name = `${route.method} ${route.path}`;
      assert.is(status, 403, name);
      assert.is(json['code'], 'OUT_OF_SCOPE', name);
      if (isClash(route)) assert.type(json['message'], 'string', name);
      else {
        assert.is(json['type'], 'urn:weir:problem:out-of-scope', name);
        assert.is(json['status'], 403, name);
      }
    }
  });
}

test('a key of the route\'s own scope (and the admin api_key) is never refused for its scope', async () => {
  for (const route of http()) {
    const scope = route.scope ?? 'admin';
    for (const key of [node.keys[scope], node.apiKey]) {
      const { status } = await call(route, key);
      assert.not.ok(status === 401 || status === 403, `${route.method} ${route.path}: ${status}`);
    }
  }
});

interface AuditEnvelope {
  event_type: string;
  payload: { caller: Record<string, unknown>; operation: string; target: Record<string, unknown>; result: string; code: string | null };
}

async function audits(): Promise<AuditEnvelope[]> {
  const res = await node.api('/api/v1/events?types=control.audit&limit=10000');
  return res.json.events as AuditEnvelope[];
}

test('the audit event of a config.apply names the key id, what it changed and its result, never a secret', async () => {
  const token = 'hook-token-that-must-stay-secret';
  const body = { upsert_sinks: [{ tag: 'audit-hook', type: 'webhook', url: 'http://127.0.0.1:59999/ingest?sig=query-secret', token, events: ['flow.completed'] }] };
  const refused = await node.api('/api/v1/config/apply', { method: 'POST', key: node.keys.operate, body });
  assert.is(refused.status, 403);
  const applied = await node.api('/api/v1/config/apply', { method: 'POST', key: node.keys.admin, body });
  assert.is(applied.status, 200, applied.text);
  const applies = (await audits()).filter((e) => e.payload.operation === 'config.apply' && (e.payload.target['upsert_sinks'] as string[]).length > 0);
  const target = { sections: [], upsert_sinks: ['audit-hook'], remove_sinks: [] };
  assert.equal(applies.map((e) => e.payload), [
    { caller: { transport: 'http', key_id: 'operate-key', remote: '127.0.0.1' }, operation: 'config.apply', target, result: 'error', code: 'OUT_OF_SCOPE' },
    { caller: { transport: 'http', key_id: 'admin-key', remote: '127.0.0.1' }, operation: 'config.apply', target, result: 'ok', code: null },
  ]);
  const log = await node.logText();
  const lines = log.split('\n').filter((l) => l.includes('"msg":"control write"') && l.includes('"upsert_sinks":["audit-hook"]'));
  assert.is(lines.length, 2, 'one log line per write');
  for (const text of [JSON.stringify(applies), log]) {
    for (const secret of [token, 'query-secret', ...node.secrets]) assert.not.ok(text.includes(secret), 'a secret in the audit trail');
  }
});

test('a refused operation is audited with its code; the Clash API names itself', async () => {
  const res = await node.api('/api/v1/policies/no-such/select', { method: 'POST', key: node.keys.operate, body: { member: 'direct' } });
  assert.is(res.status, 404);
  const clash = await node.api('/proxies/proxy', { method: 'PUT', key: node.keys.operate, body: { name: 'block' } });
  assert.is(clash.status, 204);
  const tail = (await audits()).slice(-2).map((e) => e.payload);
  assert.equal(tail, [
    { caller: { transport: 'http', key_id: 'operate-key', remote: '127.0.0.1' }, operation: 'select', target: { member: 'direct', selector: 'no-such' }, result: 'error', code: 'POLICY_NOT_FOUND' },
    { caller: { transport: 'clash', key_id: 'operate-key', remote: '127.0.0.1' }, operation: 'select', target: { selector: 'proxy', member: 'block' }, result: 'ok', code: null },
  ]);
});

test('reads are not audited', async () => {
  const before = (await audits()).length;
  for (const path of ['/api/v1/stats', '/api/v1/flows', '/proxies', '/configs']) assert.is((await node.api(path, { key: node.keys.read })).status, 200);
  assert.is((await audits()).length, before);
});

test.run();
