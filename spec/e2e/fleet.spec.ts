import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FleetMember } from '../../actors/fleet/read-fleet.js';
import { e2eConfig } from '../support/node-config.js';
import { startRedisServer } from '../support/redis-server.js';
import { startNode, type WeirNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { runWeir } from '../support/weir-bin.js';

async function fleetNode(nodeId: string, redisUrl: string): Promise<WeirNode> {
  const base = e2eConfig({ stateDir: tempDir(`weir-fleet-${nodeId}-`), inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: 0 }] });
  return startNode({ ...base, node: { ...(base['node'] as object), id: nodeId }, redis: { url: redisUrl } });
}

async function fleet(redisUrl: string): Promise<FleetMember[]> {
  const res = await runWeir(['fleet', '--json', '--redis', redisUrl]);
  assert.is(res.code, 0, res.stderr);
  return (JSON.parse(res.stdout) as { nodes: FleetMember[] }).nodes;
}

const stateOf = (members: FleetMember[], id: string): string | undefined => members.find((m) => m.node_id === id)?.state;

test('weir fleet lists the nodes on a Redis from Redis alone: a graceful stop leaves at once, a kill -9 goes stale when its presence lapses', async () => {
  const redis = await startRedisServer();
  const a = await fleetNode('edge-a', redis.url);
  const b = await fleetNode('edge-b', redis.url);
  try {
    const both = await waitFor(async () => {
      const m = await fleet(redis.url);
      return m.filter((n) => n.state === 'up').length === 2 ? m : undefined;
    }, 10_000, 'both nodes up');
    const edgeA = both.find((m) => m.node_id === 'edge-a')!;
    assert.is(edgeA.presence!.node_id, 'edge-a');
    assert.is(edgeA.presence!.mode, 'rule');
    assert.is(edgeA.presence!.pid, a.pid);
    // The control plane listens on a port the kernel gave: the presence names that one, not port 0.
    assert.is(edgeA.presence!.control, new URL(a.controlUrl()).host);
    assert.equal(Object.keys(edgeA.presence!).sort(), [
      'active_flows', 'build', 'bytes_down', 'bytes_up', 'control', 'flows_opened', 'host', 'interval_ms', 'mode', 'node_id', 'pid', 'sinks',
      'started_at_unix_ms', 'updated_at_unix_ms', 'version',
    ]);
    assert.equal(edgeA.presence!.sinks.map((s) => s.tag), ['archive']);

    const table = await runWeir(['fleet', '--redis', redis.url]);
    assert.is(table.code, 0, table.stderr);
    assert.match(table.stdout, /^NODE\s+STATE\s+UPTIME/);
    assert.match(table.stdout, '2 nodes: 2 up, 0 stale');

    assert.is(await a.stop(), 0);
    assert.is(stateOf(await fleet(redis.url), 'edge-a'), undefined, 'a graceful stop leaves the list at once');

    await b.kill9();
    assert.is(stateOf(await fleet(redis.url), 'edge-b'), 'up', 'a killed node stands until its presence lapses');
    await waitFor(async () => stateOf(await fleet(redis.url), 'edge-b') === 'stale', 45_000, 'edge-b stale');
    const one = await runWeir(['fleet', 'edge-b', '--redis', redis.url]);
    assert.is(one.code, 0, one.stderr);
    assert.match(one.stdout, /^node\s+edge-b\nstate\s+stale \(last seen /);
    assert.is((await runWeir(['fleet', 'nope', '--redis', redis.url])).code, 1);
  } finally {
    await a.stop();
    await b.stop();
    await redis.close();
  }
});

test('a node started while Redis is down appears once Redis is up; weir fleet says when Redis cannot be reached', async () => {
  const redis = await startRedisServer();
  await redis.kill9();
  const unreachable = await runWeir(['fleet', '--redis', redis.url]);
  assert.is(unreachable.code, 3);
  assert.is(unreachable.stderr, `weir: Redis at redis://127.0.0.1:${redis.port} is not reachable: ECONNREFUSED 127.0.0.1:${redis.port}\n`);
  const node = await fleetNode('edge-late', redis.url);
  try {
    await redis.restart();
    await waitFor(async () => stateOf(await fleet(redis.url), 'edge-late') === 'up', 15_000, 'edge-late up');
  } finally {
    await node.stop();
    await redis.close();
  }
});

test.run();
