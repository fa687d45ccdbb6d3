import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DASHBOARD_CSP } from '../../http/dashboard.js';
import { reap } from '../support/child-reaper.js';
import { freePort } from '../support/free-port.js';
import { hasExited } from '../support/listening.js';
import { logLines } from '../support/log-lines.js';
import { startOrigin } from '../support/origin.js';
import { startRedisServer } from '../support/redis-server.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { runWeir, WEIR_BIN } from '../support/weir-bin.js';
import { startHookNode, type HookNode } from '../support/webhook-node.js';

const DASHBOARD_KEY = 'fleet-dashboard-key-not-a-secret';

const redis = await startRedisServer();
const origin = await startOrigin();
// The receiver never answers: each node's sink keeps a queue with jobs in it.
const hook = { url: `http://127.0.0.1:${await freePort()}/ingest` };
const nodes: HookNode[] = [];
const node = async (nodeId: string): Promise<HookNode> => {
  const n = await startHookNode({ origin, hook, redisUrl: redis.url, nodeId });
  nodes.push(n);
  await n.curlFlow();
  return n;
};
await node('edge-a');
await node('edge-b');

const keyFile = path.join(tempDir('weir-fleet-dashboard-'), 'api_key');
fs.writeFileSync(keyFile, `${DASHBOARD_KEY}\n`);
const env = { ...process.env };
delete env['WEIR_API_KEY'];
const dashboard = spawn(WEIR_BIN, ['dashboard', '--redis', redis.url, '--listen', '127.0.0.1:0', '--api-key-file', keyFile], {
  stdio: ['ignore', 'pipe', 'pipe'],
  env,
});
reap(dashboard);
let output = '';
dashboard.stdout.on('data', (d: Buffer) => (output += d.toString()));
dashboard.stderr.on('data', (d: Buffer) => (output += d.toString()));
const exited = new Promise<number | null>((resolve) => dashboard.once('close', (code) => resolve(code)));
// It listens on a port the kernel gives and logs the bound address.
const started = (): string | undefined => logLines(output).find((l) => l['msg'] === 'weir dashboard started')?.['listen'] as string | undefined;
const base = `http://${await waitFor(() => !hasExited(dashboard) && started(), 15_000, `weir dashboard started\n${output}`)}`;

const bearer = { authorization: `Bearer ${DASHBOARD_KEY}` };
const get = (p: string, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${base}${p}`, { headers, redirect: 'manual', signal: AbortSignal.timeout(5000) });

interface BoardQueue {
  name: string;
  description: string;
  readOnlyMode: boolean;
}

async function queues(): Promise<BoardQueue[]> {
  const res = await get('/api/queues', bearer);
  assert.is(res.status, 200);
  return ((await res.json()) as { queues: BoardQueue[] }).queues;
}

const names = async (): Promise<string[]> => (await queues()).map((q) => q.name).sort();

test('weir dashboard lists every node sink queue on the Redis as <node>/<tag>, read-only', async () => {
  await waitFor(() => !hasExited(dashboard) && names().then((n) => n.length === 2, () => false), 15_000, `weir dashboard listing two queues\n${output}`);
  const listed = (await queues()).sort((a, b) => a.name.localeCompare(b.name));
  assert.equal(
    listed.map((q) => [q.name, q.description, q.readOnlyMode]),
    [
      ['edge-a/hook', 'sink hook of node edge-a', true],
      ['edge-b/hook', 'sink hook of node edge-b', true],
    ],
  );
});

test('without the API key, or with another, it answers 401', async () => {
  const refused: Record<string, string>[] = [{}, { authorization: 'Bearer e2e-api-key-not-a-secret' }];
  for (const headers of refused) {
    const res = await get('/api/queues', headers);
    assert.is(res.status, 401);
    assert.is(res.headers.get('content-type')?.split(';')[0], 'application/problem+json');
    assert.is(((await res.json()) as { code: string }).code, 'UNAUTHORIZED');
  }
  assert.is((await get('/?token=wrong-key')).status, 401);
});

test('?token= opens the page with a session cookie; its content-security policy is the node dashboard one', async () => {
  const login = await get(`/?token=${DASHBOARD_KEY}`);
  assert.is(login.status, 303);
  assert.is(login.headers.get('location'), '/');
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  assert.match(cookie, /^weir_dashboard=[A-Za-z0-9_-]{43}$/);
  const page = await get('/', { cookie });
  assert.is(page.status, 200);
  assert.match(await page.text(), '<html');
  assert.is(page.headers.get('content-security-policy'), DASHBOARD_CSP);
  assert.is((await get('/api/queues', bearer)).headers.get('content-security-policy'), DASHBOARD_CSP);
});

test('a node that starts later appears at the next search', async () => {
  await node('edge-c');
  await waitFor(() => names().then((n) => n.includes('edge-c/hook'), () => false), 25_000, 'edge-c/hook on the board');
  assert.equal(await names(), ['edge-a/hook', 'edge-b/hook', 'edge-c/hook']);
});

test('SIGTERM stops it with exit 0; the key never shows in its log', async () => {
  dashboard.kill('SIGTERM');
  assert.is(await exited, 0, output);
  assert.match(output, 'weir dashboard stopped');
  assert.not.match(output, DASHBOARD_KEY);
});

test('without an API key it refuses to start, exit 2', async () => {
  const res = await runWeir(['dashboard', '--redis', redis.url, '--listen', '127.0.0.1:0']);
  assert.is(res.code, 2);
  assert.match(res.stderr, 'weir dashboard needs an API key');
});

test.after(async () => {
  if (!hasExited(dashboard)) dashboard.kill('SIGKILL');
  await Promise.all(nodes.map((n) => n.node.stop()));
  await Promise.all([redis.close(), origin.close()]);
});

test.run();
