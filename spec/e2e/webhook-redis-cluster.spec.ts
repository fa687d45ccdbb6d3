import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sinkKeys } from '../../actors/outbox/bullmq-keys.js';
import { readJsonl, ofType } from '../support/jsonl.js';
import { E2E_NODE_ID } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startRedisCluster } from '../support/redis-cluster.js';
import { inAnyGap } from '../support/replay-gaps.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { startDeliver, type DeliverProcess } from '../support/weir-deliver.js';
import { runWeir } from '../support/weir-bin.js';
import { completedById, deliveredAll } from '../support/webhook-expect.js';
import { HOOK_TOKEN, startHookNode, type HookNode } from '../support/webhook-node.js';

const QUEUE = `${E2E_NODE_ID}/hook`;

/** The node ids `weir fleet --json` lists as up, read from the cluster alone. */
async function fleetUp(configPath: string): Promise<string[]> {
  const res = await runWeir(['fleet', '--json', '-c', configPath]);
  assert.is(res.code, 0, res.stderr);
  return (JSON.parse(res.stdout) as { nodes: { node_id: string; state: string }[] }).nodes.filter((n) => n.state === 'up').map((n) => n.node_id);
}

test('a node and weir deliver on a Redis Cluster of 3 masters and 3 replicas carry on through a kill -9 of the master of the node\'s slot under load', async () => {
  const cluster = await startRedisCluster();
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  const origin = await startOrigin();
  let hn: HookNode | null = null;
  let worker: DeliverProcess | null = null;
  try {
    hn = await startHookNode({ origin, redis: { cluster: cluster.seeds }, hook: { url: receiver.url(), delivery: 'external', batch_size: 5 } });
    worker = await startDeliver(hn.configPath, QUEUE);
    const ports = await hn.curlFlows(10);
    await waitFor(() => deliveredAll(receiver.acknowledged(), ports), 30_000, 'the first flows delivered through the cluster');
    assert.equal(await waitFor(async () => ((await fleetUp(hn!.configPath)).includes(E2E_NODE_ID) ? [E2E_NODE_ID] : null), 30_000, 'the node in weir fleet'), [E2E_NODE_ID]);

    // Every key of the node is in one slot: its master is the one to lose.
    const key = sinkKeys(E2E_NODE_ID, 'hook').state;
    const master = await cluster.masterOf(key);
    const load = hn.curlFlows(40, 2);
    await waitFor(() => completedById(receiver.acknowledged()).size >= 15, 30_000, 'deliveries under load');
    await master.kill9();
    const promoted = await cluster.failedOver(key, master);
    assert.is.not(promoted.port, master.port);
    ports.push(...(await load), ...(await hn.curlFlows(10)));

    // Every flow.completed the node archived is acknowledged, or inside a replay gap it reports.
    const settled = await hn.sinkWhen((s) => s.pending === 0, 'nothing pending after the failover', { timeoutMs: 90_000 });
    const archived = await waitFor(() => {
      const completed = ofType(readJsonl(hn!.events), 'flow.completed');
      return completed.length >= ports.length ? completed : null;
    }, 30_000, 'every flow.completed archived');
    const gaps = settled.gaps ?? [];
    const unaccounted = await waitFor(() => {
      const acked = completedById(receiver.acknowledged());
      const missing = archived.filter((e) => !acked.has(e.event_id) && !inAnyGap(e.sequence, gaps));
      return missing.length === 0 ? missing : null;
    }, 60_000, 'every archived flow.completed acknowledged or in a replay gap');
    assert.equal(unaccounted, []);
    assert.equal(await waitFor(async () => ((await fleetUp(hn!.configPath)).includes(E2E_NODE_ID) ? [E2E_NODE_ID] : null), 30_000, 'the node in weir fleet after the failover'), [E2E_NODE_ID]);
    // `weir connector state` reads the sink from the cluster too, as the node counts it
    // once the last completions are counted (read together: the worker may still be counting).
    const agreed = await waitFor(async () => {
      const offline = await runWeir(['connector', 'state', '--json', hn!.configPath]);
      assert.is(offline.code, 0, offline.stderr);
      const hook = (JSON.parse(offline.stdout) as { tag: string; pending: number; total_delivered: number }[]).find((c) => c.tag === 'hook')!;
      const node = (await hn!.sink())!;
      return hook.pending === 0 && hook.total_delivered === node.total_delivered ? hook : null;
    }, 30_000, 'weir connector state agreeing with the node');
    // total_delivered counts distinct events acknowledged by a 2xx: each flow.completed the
    // receiver acknowledged once, however often a failover had it delivered.
    assert.is(agreed.total_delivered, completedById(receiver.acknowledged()).size);
  } finally {
    await worker?.stop();
    await hn?.node.stop();
    await Promise.all([receiver.close(), origin.close(), cluster.close()]);
  }
});

test.run();
