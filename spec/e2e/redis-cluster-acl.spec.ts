import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { E2E_NODE_ID } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startRedisCluster } from '../support/redis-cluster.js';
import { aclUserLine } from '../support/redis-tls.js';
import { runCommand } from '../support/run-command.js';
import { waitFor } from '../support/wait-for.js';
import { deliveredAll } from '../support/webhook-expect.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { HOOK_TOKEN, startHookNode, type HookNode } from '../support/webhook-node.js';
import { runWeir } from '../support/weir-bin.js';

const PASSWORD = 'cluster-acl-pass-9f04c2d7';

// weir deliver as the ACL user is redis-tls-acl.spec.ts's; here the node's own BullMQ worker runs on the cluster.
test('a node delivering its own queue and weir fleet run on a Redis Cluster as the documented ACL user', async () => {
  const cluster = await startRedisCluster();
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  const origin = await startOrigin();
  let hn: HookNode | null = null;
  try {
    // ACL users are per node in a cluster: every node gets docs/redis-acl.conf's.
    const { user, line } = aclUserLine(PASSWORD);
    for (const server of cluster.servers) {
      const res = await runCommand('redis-cli', ['-p', String(server.port), 'ACL', 'SETUSER', ...line.split(' ').slice(1)], { timeoutMs: 10_000 });
      assert.is(res.stdout.trim(), 'OK', res.stderr);
    }
    const seeds = cluster.seeds.map((s) => s.replace('redis://', `redis://:${PASSWORD}@`));
    hn = await startHookNode({ origin, redis: { cluster: seeds, username: user }, hook: { url: receiver.url() } });
    const ports = await hn.curlFlows(5);
    await waitFor(() => deliveredAll(receiver.acknowledged(), ports), 30_000, 'the flows delivered through the cluster as the ACL user');
    await waitFor(async () => {
      const res = await runWeir(['fleet', '--json', '-c', hn!.configPath]);
      assert.is(res.code, 0, res.stderr);
      return (JSON.parse(res.stdout) as { nodes: { node_id: string }[] }).nodes.some((n) => n.node_id === E2E_NODE_ID);
    }, 30_000, 'the node in weir fleet');
    const denied = await runCommand('redis-cli', ['-c', '-p', String(cluster.servers[0]!.port), '--user', user, '--pass', PASSWORD, '--no-auth-warning', 'GET', 'other:x'], { timeoutMs: 10_000 });
    assert.match(denied.stdout + denied.stderr, /NOPERM/);
  } finally {
    await hn?.node.stop();
    await Promise.all([receiver.close(), origin.close(), cluster.close()]);
  }
});

test.run();
