import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../support/free-port.js';
import { startRedisServer } from '../support/redis-server.js';
import { startOrigin } from '../support/origin.js';
import { DASHBOARD_CSP } from '../../http/dashboard.js';
import { startHookNode } from '../support/webhook-node.js';

const API_KEY = 'e2e-api-key-not-a-secret';

const redis = await startRedisServer();
const origin = await startOrigin();
// The receiver never answers: the dashboard shows the sink's queue, whatever is in it.
const hook = { url: `http://127.0.0.1:${await freePort()}/ingest` };
const onRedis = await startHookNode({ origin, hook, redisUrl: redis.url });
const embedded = await startHookNode({ origin, hook });
const dashboard = (node: typeof onRedis, path = '', init: RequestInit = {}): Promise<Response> =>
  fetch(`${node.controlUrl}/dashboard${path}`, { redirect: 'manual', ...init });

test('the dashboard refuses a visitor without the API key', async () => {
  const res = await dashboard(onRedis, '/');
  assert.is(res.status, 401);
  assert.is(res.headers.get('content-type')?.split(';')[0], 'application/problem+json');
  assert.is(((await res.json()) as { code: string }).code, 'UNAUTHORIZED');
  assert.is((await dashboard(onRedis, '?token=wrong-key')).status, 401);
});

test('?token= sets a session cookie that is not the key, then the page and the sink queue show', async () => {
  const login = await dashboard(onRedis, `?token=${API_KEY}`);
  assert.is(login.status, 303);
  assert.is(login.headers.get('location'), '/dashboard');
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  assert.match(cookie, /^weir_dashboard=[A-Za-z0-9_-]{43}$/);
  assert.not.match(cookie, API_KEY);
  const page = await dashboard(onRedis, '/', { headers: { cookie } });
  assert.is(page.status, 200);
  assert.match(await page.text(), '<html');
  // bull-board's page links Google Fonts; the policy keeps the browser from loading it.
  const policy = page.headers.get('content-security-policy') ?? '';
  assert.is(policy, DASHBOARD_CSP);
  assert.match(policy, /^default-src 'self';/);
  assert.not.match(policy, 'googleapis');
  await onRedis.curlFlow();
  const queues = (await (await dashboard(onRedis, '/api/queues', { headers: { cookie } })).json()) as {
    queues: { name: string; description: string }[];
  };
  assert.equal(
    queues.queues.map((q) => [q.name, q.description]),
    [['hook', 'sink hook']],
  );
});

test('a Bearer header opens it too; without Redis it says the dashboard needs Redis', async () => {
  const bearer = { headers: { authorization: `Bearer ${API_KEY}` } };
  assert.is((await dashboard(onRedis, '/api/queues', bearer)).status, 200);
  const none = await dashboard(embedded, '/', bearer);
  assert.is(none.status, 404);
  assert.match(((await none.json()) as { detail: string }).detail, 'needs `redis`');
});

test.after(async () => {
  await Promise.all([onRedis.node.stop(), embedded.node.stop()]);
  await Promise.all([redis.close(), origin.close()]);
});

test.run();
