import { Redis } from 'ioredis';
import { spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { reap } from '../support/child-reaper.js';
import { hasExited } from '../support/listening.js';
import { logLines } from '../support/log-lines.js';
import { E2E_NODE_ID } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startRedisCluster, type RedisCluster } from '../support/redis-cluster.js';
import { aclUserLine } from '../support/redis-tls.js';
import { runCommand } from '../support/run-command.js';
import { waitFor } from '../support/wait-for.js';
import { deliveredAll } from '../support/webhook-expect.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { HOOK_TOKEN, startHookNode, type HookNode } from '../support/webhook-node.js';
import { runWeir, WEIR_BIN } from '../support/weir-bin.js';
import { codeLines } from '../support/log-lines.js';

const PASSWORD = 'cluster-acl-pass-9f04c2d7';

/** Gives every node of `cluster` the user of `line` (an aclfile line) with its rules as they are there. */
async function setUserEverywhere(cluster: RedisCluster, line: string): Promise<void> {
  const [, user, ...rules] = line.split(' ');
  await cluster.setUser(user!, rules);
}

interface ClusterNode {
  cluster: RedisCluster;
  receiver: WebhookReceiver;
  hn: HookNode;
  /** The documented ACL user's name and aclfile line, with the spec's password. */
  user: string;
  line: string;
}

/**
 * A cluster whose every node has the ACL user of docs/redis-acl.conf changed by
 * `rules` (ACL users are per node in a cluster), and a node on it as that user
 * delivering to a receiver; everything is stopped after `run`.
 */
async function onClusterAs(rules: (line: string) => string, run: (parts: ClusterNode) => Promise<void>): Promise<void> {
  const cluster = await startRedisCluster();
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  const origin = await startOrigin();
  let hn: HookNode | null = null;
  try {
    const { user, line } = aclUserLine(PASSWORD);
    await setUserEverywhere(cluster, rules(line));
    const seeds = cluster.seeds.map((s) => s.replace('redis://', `redis://:${PASSWORD}@`));
    hn = await startHookNode({ origin, redis: { cluster: seeds, username: user }, hook: { url: receiver.url() } });
    await run({ cluster, receiver, hn, user, line });
  } finally {
    await hn?.node.stop();
    await Promise.all([receiver.close(), origin.close(), cluster.close()]);
  }
}

// weir deliver as the ACL user is redis-tls-acl.spec.ts's; here the node's own BullMQ worker runs on the cluster.
test('a node delivering its own queue and weir fleet run on a Redis Cluster as the documented ACL user', () =>
  onClusterAs(
    (line) => line,
    async ({ cluster, receiver, hn, user }) => {
      const ports = await hn.curlFlows(5);
      await waitFor(() => deliveredAll(receiver.acknowledged(), ports), 30_000, 'the flows delivered through the cluster as the ACL user');
      await waitFor(async () => {
        const res = await runWeir(['fleet', '--json', '-c', hn.configPath]);
        assert.is(res.code, 0, res.stderr);
        return (JSON.parse(res.stdout) as { nodes: { node_id: string }[] }).nodes.some((n) => n.node_id === E2E_NODE_ID);
      }, 30_000, 'the node in weir fleet');
      const denied = await runCommand('redis-cli', ['-c', '-p', String(cluster.servers[0]!.port), '--user', user, '--pass', PASSWORD, '--no-auth-warning', 'GET', 'other:x'], { timeoutMs: 10_000 });
      assert.match(denied.stdout + denied.stderr, /NOPERM/);
      // Signed in as the ACL user, not as `default` (which a cluster without an aclfile lets in).
      const clients = (await Promise.all(cluster.servers.map((s) => clientList(s.port)))).flat().filter((c) => !/ flags=[SM] /.test(c) && !c.includes('cmd=client|list'));
      assert.ok(clients.length > 0 && clients.every((c) => c.includes(` user=${user} `)), clients.join('\n'));
    },
  ));

/** The clients a server has now, a CLIENT LIST line each. */
async function clientList(port: number): Promise<string[]> {
  const client = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 });
  try {
    return String(await client.call('CLIENT', 'LIST')).split('\n').filter((l) => l !== '');
  } finally {
    client.disconnect();
  }
}

// ioredis's cluster client asks CLUSTER INFO before it is ready; refused, it starts over for ever, and weir used to wait with it.
test('a node whose cluster ACL user may not run CLUSTER INFO proxies at once, journals and says why, the CLI exits 3 with it, and the journal moves once every node allows it', () =>
  onClusterAs(
    (line) => line.replace(' +cluster|info', ''),
    async ({ cluster, receiver, hn, line }) => {
      const ports = await hn.curlFlows(3);
      const refused = `Redis at ${cluster.seeds.join(', ')} refused weir: the ACL user may not run a command a cluster client needs: NOPERM this user has no permissions to run the 'cluster|info' command`;
      const sink = await hn.sinkWhen((s) => s.pending === ports.length, 'the flows journaled');
      assert.ok(sink.last_error?.message.includes(refused), JSON.stringify(sink.last_error));
      const warned = codeLines(hn.node.stdout(), 'redis_unreachable').map((l) => JSON.stringify(l));
      assert.is(warned.length, 1, hn.node.stdout());
      assert.ok(warned[0]!.includes(refused), warned[0]);
      const status = await runWeir(['status', '--json', '-c', hn.configPath]);
      assert.is(status.code, 0, status.stderr);
      assert.ok(status.stdout.includes(refused), status.stdout);
      for (const command of [['deliver', '-c', hn.configPath], ['fleet', '-c', hn.configPath], ['connector', 'state', hn.configPath]]) {
        const res = await runWeir(command, 30_000);
        assert.is(res.code, 3, `weir ${command[0]}: ${res.stderr}`);
        assert.ok(res.stderr.includes(refused), res.stderr);
      }
      // weir dashboard keeps trying, as it does while Redis is down, and logs why once.
      const dashboard = spawn(WEIR_BIN, ['dashboard', '-c', hn.configPath, '--listen', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'pipe'] });
      reap(dashboard);
      let output = '';
      dashboard.stdout.on('data', (d: Buffer) => (output += d.toString()));
      dashboard.stderr.on('data', (d: Buffer) => (output += d.toString()));
      try {
        const why = await waitFor(() => logLines(output).find((l) => l['msg'] === 'weir dashboard cannot search Redis for sink queues'), 30_000, 'weir dashboard telling why it cannot search');
        assert.is(why['err'], refused, output);
        assert.not.ok(hasExited(dashboard), output);
      } finally {
        dashboard.kill('SIGTERM');
      }
      assert.is(receiver.acknowledged().length, 0);

      await setUserEverywhere(cluster, line);
      await waitFor(() => deliveredAll(receiver.acknowledged(), ports), 60_000, 'the journaled flows delivered once every node allows CLUSTER INFO');
      for (const text of [hn.node.stdout(), hn.node.stderr(), status.stdout, ...hn.bodies]) assert.not.ok(text.includes(PASSWORD), 'the password shows nowhere');
    },
  ));

test.run();
