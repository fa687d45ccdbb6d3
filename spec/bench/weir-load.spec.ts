// The native load client and origin as the bench runs them: built with the bench's
// flags (-Werror), real processes on loopback, small bounded jobs.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePorts } from '../support/free-port.js';
import { e2eConfig } from '../support/node-config.js';
import { ALICE, usersInbound } from '../support/principal-users.js';
import { startNode } from '../support/start-node.js';
import { killAllNow } from './children.js';
import { runLoad } from './load-runner.js';
import { buildWeirLoad } from './native-build.js';
import { startOrigins, type Origins } from './origins.js';
import { peers, startPeer, type RunningPeer } from './peers.js';
import { loudBefore } from '../support/loud-before.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-load-spec-'));
const binary = path.join(dir, 'weir-load');
let origins: Origins;
let relay: RunningPeer;

const direct = (port: number) => ({ port, proto: 'none', target: { host: '127.0.0.1', port } }) as const;

loudBefore(test, async () => {
  buildWeirLoad(path.join(REPO, 'spec', 'bench', 'weir-load.c'), binary);
  origins = await startOrigins(binary);
  const node = peers(REPO).find((p) => p.name === 'node-socks5');
  if (!node) throw new Error('no node-socks5 peer');
  relay = await startPeer(node, dir, origins, 10_000);
});

test.after(async () => {
  await relay?.stop();
  await origins?.close();
  killAllNow();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('builds without a warning and answers a bad command line with a JSON error', () => {
  const run = spawnSync(binary, ['rate', '--port', '0'], { encoding: 'utf8', timeout: 5000 });
  assert.is(run.status, 1);
  assert.match(run.stdout, /^\{"error":"usage: weir-load origin \| weir-load stream\|rate\|idle /);
});

test('a stream reaches the sink whole, the tail under the sink\'s wake-up size included', async () => {
  for (const bytes of [5, 3 * 2 ** 20 + 1]) {
    const r = await runLoad(binary, { kind: 'stream', ...direct(origins.sinkPort), bytes }, 10_000);
    assert.is(r.bytes, bytes);
    assert.ok(r.seconds > 0 && r.cpuUs >= 0);
  }
});

test('short connections through the raw SOCKS5 relay echo and close, with their latency', async () => {
  const job = { kind: 'rate', port: relay.ports.echoOnce, proto: 'socks5', target: { host: '127.0.0.1', port: origins.echoOncePort }, concurrency: 5, ms: 300 } as const;
  const r = await runLoad(binary, job, 15_000);
  assert.ok(r.completed > 0, `${r.completed} completed`);
  assert.is(r.failed, 0);
  assert.ok(r.latencyUs.p50 <= r.latencyUs.p99 && r.latencyUs.p99 <= r.latencyUs.max);
});

test('a paced rate starts no more connections than are due, and refuses a pace that is not a number', async () => {
  // 10 a second for 500 ms: at most 6 are due, where unpaced 5 at a time through the
  // relay complete many more even on a loaded machine (some tens).
  const job = { kind: 'rate', port: relay.ports.echoOnce, proto: 'socks5', target: { host: '127.0.0.1', port: origins.echoOncePort }, concurrency: 5, ms: 500 } as const;
  const paced = await runLoad(binary, { ...job, perSecond: 10 }, 15_000);
  assert.ok(paced.completed >= 1 && paced.completed <= 6, `${paced.completed} completed`);
  assert.is(paced.failed, 0);
  const unpaced = await runLoad(binary, job, 15_000);
  assert.ok(unpaced.completed > 6, `${unpaced.completed} completed unpaced`);
  const bad = spawnSync(binary, ['rate', '--port', '1', '--proto', 'none', '--target', '127.0.0.1:1', '--per-second', 'fast'], { encoding: 'utf8', timeout: 5000 });
  assert.is(bad.status, 1);
  assert.match(bad.stdout, /"error":"usage: /);
});

test('a CONNECT the proxy refuses fails the cycle instead of counting it', async () => {
  // The raw relay takes IPv4 targets only; a domain gets reply 7 (command not supported).
  const job = { kind: 'rate', port: relay.ports.echoOnce, proto: 'socks5', target: { host: 'localhost', port: origins.echoOncePort }, concurrency: 2, ms: 200 } as const;
  const r = await runLoad(binary, job, 15_000);
  assert.is(r.completed, 0);
  assert.ok(r.failed > 0);
});

test('--auth offers user/password: the account passes a SOCKS5 inbound that requires one, a wrong password does not', async () => {
  const [port] = await freePorts(1);
  const node = await startNode(e2eConfig({ stateDir: path.join(dir, 'auth-node'), inbounds: [{ ...usersInbound(), listen: '127.0.0.1', port }] }));
  try {
    const job = (auth: string) => ({ kind: 'rate', port: port!, proto: 'socks5', auth, target: { host: '127.0.0.1', port: origins.echoOncePort }, concurrency: 2, ms: 200 }) as const;
    const ok = await runLoad(binary, job(ALICE), 15_000);
    assert.ok(ok.completed > 0, `${ok.completed} completed`);
    assert.is(ok.failed, 0);
    const refused = await runLoad(binary, job(`${ALICE}-wrong`), 15_000);
    assert.is(refused.completed, 0);
    assert.ok(refused.failed > 0);
  } finally {
    await node.stop();
  }
  const http = spawnSync(binary, ['rate', '--port', '1', '--proto', 'http', '--target', '127.0.0.1:1', '--auth', ALICE], { encoding: 'utf8', timeout: 5000 });
  assert.match(http.stdout, /^\{"error":"usage: /, 'HTTP takes no --auth');
});

test('idle tunnels are held until the origin closes its echoes', async () => {
  let heldWhileOpen = -1;
  const job = { kind: 'idle', ...direct(origins.echoPort), count: 20, concurrency: 5, holdMs: 10_000 } as const;
  const r = await runLoad(binary, job, 20_000, async (held) => {
    heldWhileOpen = held.held;
    origins.closeEchoes();
  });
  assert.is(heldWhileOpen, 20);
  assert.is(r.held, 20);
  assert.is(r.failed, 0);
});

test.run();
