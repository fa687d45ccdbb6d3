import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { E2E_NODE_ID } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startTlsAclRedis, type TlsAclRedis } from '../support/redis-tls.js';
import { runCommand } from '../support/run-command.js';
import type { CertFiles } from '../support/test-ca.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { deliveredAll } from '../support/webhook-expect.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { HOOK_TOKEN, startHookNode, type HookNode } from '../support/webhook-node.js';
import { runWeir } from '../support/weir-bin.js';
import { startDeliver, type DeliverProcess } from '../support/weir-deliver.js';
import { codeLines } from '../support/log-lines.js';

const PASSWORD = 'acl-pass-5d1e90b7c3a4f286';
const WRONG = 'wrong-pass-8c27f1e04b9d';
const QUEUE = `${E2E_NODE_ID}/hook`;

/** The node's state dir with the client's PEM files in `tls/`, and the `redis` section that names them relative to the config. */
function redisSection(redis: TlsAclRedis, stateDir: string, client: CertFiles, password: string): Record<string, unknown> {
  fs.mkdirSync(path.join(stateDir, 'tls'), { recursive: true });
  fs.copyFileSync(redis.ca, path.join(stateDir, 'tls', 'ca.pem'));
  fs.copyFileSync(client.cert, path.join(stateDir, 'tls', 'client.pem'));
  fs.copyFileSync(client.key, path.join(stateDir, 'tls', 'client.key'));
  return { url: `rediss://:${password}@127.0.0.1:${redis.server.port}`, username: redis.user, tls: { ca: 'tls/ca.pem', cert: 'tls/client.pem', key: 'tls/client.key' } };
}

/** redis-cli over TLS as the documented user: the reply's text. */
async function asWeirUser(redis: TlsAclRedis, ...command: string[]): Promise<string> {
  const tls = ['--tls', '--cacert', redis.ca, '--cert', redis.client.cert, '--key', redis.client.key];
  const res = await runCommand('redis-cli', [...tls, '-h', '127.0.0.1', '-p', String(redis.server.port), '--user', redis.user, '--pass', redis.password, '--no-auth-warning', ...command], { timeoutMs: 10_000 });
  return (res.stdout + res.stderr).trim();
}

test('a node, weir deliver, weir fleet and weir connector state work over TLS as the documented ACL user, which reaches no other key', async () => {
  const redis = await startTlsAclRedis(PASSWORD);
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  const origin = await startOrigin();
  let hn: HookNode | null = null;
  let worker: DeliverProcess | null = null;
  try {
    const stateDir = tempDir('weir-tls-');
    hn = await startHookNode({ origin, stateDir, redis: redisSection(redis, stateDir, redis.client, PASSWORD), hook: { url: receiver.url(), delivery: 'external' } });
    worker = await startDeliver(hn.configPath, QUEUE);
    const ports = await hn.curlFlows(5);
    await waitFor(() => deliveredAll(receiver.acknowledged(), ports), 30_000, 'the flows delivered through TLS as the ACL user');

    const fleet = await waitFor(async () => {
      const res = await runWeir(['fleet', '--json', '-c', hn!.configPath]);
      assert.is(res.code, 0, res.stderr);
      const nodes = (JSON.parse(res.stdout) as { nodes: { node_id: string; state: string }[] }).nodes;
      return nodes.some((n) => n.node_id === E2E_NODE_ID && n.state === 'up') ? nodes : null;
    }, 30_000, 'the node up in weir fleet');
    assert.equal(fleet.map((n) => n.node_id), [E2E_NODE_ID]);
    const settled = await hn.sinkWhen((s) => s.pending === 0 && s.total_delivered === ports.length, 'every flow counted delivered');
    const offline = await runWeir(['connector', 'state', '--json', hn.configPath]);
    assert.is(offline.code, 0, offline.stderr);
    const hook = (JSON.parse(offline.stdout) as { tag: string; pending: number; total_delivered: number }[]).find((c) => c.tag === 'hook')!;
    assert.equal([hook.pending, hook.total_delivered], [0, settled.total_delivered]);

    // Least privilege: weir's keys only, and no server-wide command.
    assert.is(await asWeirUser(redis, 'SET', 'weir:probe', '1'), 'OK');
    assert.match(await asWeirUser(redis, 'GET', 'other:x'), /^NOPERM .*keys/);
    assert.match(await asWeirUser(redis, 'FLUSHALL'), /^NOPERM .*'flushall'/);
    assert.match(await asWeirUser(redis, 'CONFIG', 'GET', 'dir'), /^NOPERM /);

    const status = await runWeir(['status', '--json', '-c', hn.configPath]);
    assert.is(status.code, 0, status.stderr);
    for (const text of [hn.node.stdout(), hn.node.stderr(), worker.stdout(), worker.stderr(), offline.stdout, status.stdout, ...hn.bodies]) assert.not.ok(text.includes(PASSWORD), 'the password shows nowhere');
  } finally {
    await worker?.stop();
    await hn?.node.stop();
    await Promise.all([receiver.close(), origin.close(), redis.server.close()]);
  }
});

test('a wrong password and a client certificate of another CA are clear errors naming the URL, never the password: exit 3 from the CLI, last_error in the node', async () => {
  const redis = await startTlsAclRedis(PASSWORD);
  const origin = await startOrigin();
  const url = `rediss://127.0.0.1:${redis.server.port}`;
  let hn: HookNode | null = null;
  try {
    const configs = { password: WRONG, certificate: PASSWORD };
    for (const [fault, password] of Object.entries(configs)) {
      const stateDir = tempDir('weir-tls-');
      const client = fault === 'certificate' ? redis.stranger : redis.client;
      hn = await startHookNode({ origin, stateDir, redis: redisSection(redis, stateDir, client, password), hook: { url: 'http://127.0.0.1:2/', delivery: 'external' } });
      const why = fault === 'password' ? /refused weir: the sign-in failed: WRONGPASS/ : /refused weir: (the TLS handshake failed: .*unknown ca|Redis closed the TLS connection before any reply, as it does with a client certificate it does not accept)/;
      for (const command of [['fleet', '-c', hn.configPath], ['deliver', '-c', hn.configPath], ['connector', 'state', hn.configPath]]) {
        const res = await runWeir(command);
        assert.is(res.code, 3, `weir ${command[0]} with a wrong ${fault}: ${res.stderr}`);
        assert.ok(res.stderr.includes(`Redis at ${url} refused weir`), res.stderr);
        assert.match(res.stderr, why);
        assert.not.ok(res.stderr.includes(password), 'no password in the error');
      }
      // The node runs on: its flows are journaled, and the sink says why Redis has them not.
      await hn.curlFlow();
      const sink = await hn.sinkWhen((s) => s.pending === 1, 'the flow journaled');
      assert.ok(sink.last_error?.message.includes(`Redis at ${url} refused weir`), JSON.stringify(sink.last_error));
      assert.match(sink.last_error!.message, why);
      const warned = codeLines(hn.node.stdout(), 'redis_unreachable').map((l) => JSON.stringify(l));
      assert.is(warned.length, 1, hn.node.stdout());
      assert.match(warned[0]!, why);
      const status = await runWeir(['status', '--json', '-c', hn.configPath]);
      assert.match(status.stdout, why);
      for (const text of [hn.node.stdout(), hn.node.stderr(), status.stdout, ...hn.bodies]) assert.not.ok(text.includes(password), 'the password shows nowhere');
      await hn.node.stop();
      hn = null;
    }
  } finally {
    await hn?.node.stop();
    await Promise.all([origin.close(), redis.server.close()]);
  }
});

test('a node whose Redis starts refusing its password warns once, names the refusal as last_error, and delivers its journal once the password is taken again', async () => {
  const redis = await startTlsAclRedis(PASSWORD);
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  const origin = await startOrigin();
  let hn: HookNode | null = null;
  try {
    const stateDir = tempDir('weir-tls-');
    hn = await startHookNode({ origin, stateDir, redis: redisSection(redis, stateDir, redis.client, PASSWORD), hook: { url: receiver.url() } });
    const ports = await hn.curlFlows(2);
    await waitFor(() => deliveredAll(receiver.acknowledged(), ports), 30_000, 'the first flows delivered');

    await redis.changePassword(WRONG);
    ports.push(...(await hn.curlFlows(3)));
    const refused = await hn.sinkWhen((s) => s.last_error?.message.includes('refused weir') === true, 'the refusal as last_error', { timeoutMs: 30_000 });
    assert.match(refused.last_error!.message, /Redis at rediss:\/\/127\.0\.0\.1:\d+ refused weir: the sign-in failed: WRONGPASS/);
    ports.push(...(await hn.curlFlows(2)));
    // A command cut while the connection is made again may tell the outage first; the refusal is told once.
    const warned = codeLines(hn.node.stdout(), 'redis_unreachable').map((l) => JSON.stringify(l));
    assert.ok(warned.length <= 2, hn.node.stdout());
    assert.is(warned.filter((l) => /refused weir: the sign-in failed: WRONGPASS/.test(l)).length, 1, hn.node.stdout());

    await redis.changePassword(PASSWORD);
    await waitFor(() => deliveredAll(receiver.acknowledged(), ports), 60_000, 'the journaled flows delivered once the password is taken');
    for (const text of [hn.node.stdout(), hn.node.stderr(), ...hn.bodies]) assert.not.ok(text.includes(PASSWORD) || text.includes(WRONG), 'no password shows');
  } finally {
    await hn?.node.stop();
    await Promise.all([receiver.close(), origin.close(), redis.server.close()]);
  }
});

test.run();
