import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { curl } from '../support/curl.js';
import { WAIT_MS } from '../support/far-bound.js';
import { E2E_API_KEY, e2eConfig } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { startFakeHook } from '../unit/hook/fake-hook.js';

// The node sends every new flow (client, target, user) to its IPC hook and routes by
// the answer: a config.apply that moved the hook's socket path had the node connect to
// whatever Unix socket the API key's holder named. The config file sets the path.

const AUTH = { authorization: `Bearer ${E2E_API_KEY}`, 'content-type': 'application/json' };

test("config.apply refuses to move the IPC hook to another socket, keeps the config file's, and takes its timeout with that path", async () => {
  const [origin, own, other] = await Promise.all([startOrigin(), startFakeHook(() => ({ action: 'allow' })), startFakeHook(() => ({ action: 'allow' }))]);
  const config = e2eConfig({ stateDir: tempDir(), inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: 0 }] });
  config['ipc_hook'] = { path: own.path, timeout_ms: 2000 };
  const node = await startNode(config);
  const control = node.controlUrl();
  const socks = `127.0.0.1:${node.ports['socks-in']}`;
  const apply = async (body: object): Promise<{ status: number; json: { code?: string; details?: { problems?: { path: string; message: string }[] } } }> => {
    const res = await fetch(`${control}/api/v1/config/apply`, { method: 'POST', headers: AUTH, body: JSON.stringify(body), signal: AbortSignal.timeout(WAIT_MS) });
    return { status: res.status, json: (await res.json()) as never };
  };
  const flow = async (): Promise<void> => {
    const res = await curl(['--socks5-hostname', socks, '-o', '/dev/null', origin.url('/bytes/16')]);
    assert.is(res.code, 0, res.stderr);
  };
  try {
    await waitFor(async () => (await fetch(`${control}/api/v1/health`, { headers: AUTH }).catch(() => null))?.ok, WAIT_MS, 'the control plane');
    const moved = await apply({ ipc_hook: { path: other.path, timeout_ms: 2000 } });
    await flow();
    assert.is(other.connections(), 0, 'the node connected to the socket the request named');
    assert.is(moved.status, 422);
    assert.is(moved.json.code, 'CONFIG_INVALID');
    assert.equal(moved.json.details?.problems, [
      { path: 'ipc_hook.path', message: "config.apply sets the IPC hook's timeout and keeps its socket path; the path is set in the config file" },
    ]);
    assert.is(own.questions.length, 1, 'the flow was asked of the hook the config file names');

    const kept = await apply({ ipc_hook: { path: own.path, timeout_ms: 1500 } });
    assert.is(kept.status, 200, JSON.stringify(kept.json));
    await flow();
    assert.is(own.questions.length, 2);
    assert.is(other.connections(), 0);
  } finally {
    await node.stop();
    await Promise.all([origin.close(), own.close(), other.close()]);
  }
});

test.run();
