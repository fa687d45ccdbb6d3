import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import * as assert from 'uvu/assert';
import { nodeClaimKey } from '../../../actors/outbox/bullmq-keys.js';
import { BullmqOutboxStore } from '../../../actors/outbox/bullmq-outbox-store.js';
import { NodeIdInUseError, RedisNodeClaim } from '../../../actors/outbox/redis-node-claim.js';
import { redisSuite } from '../../support/redis-server.js';
import { tempDir } from '../../support/temp-dir.js';
import { waitFor } from '../../support/wait-for.js';
import { entries, ROOMY } from '../../unit/outbox/outbox-contract.js';

// One running node per node id on a shared Redis (redis-node-claim.ts).
const { test, server } = redisSuite('Redis outbox: the claim of a node id');
let nodes = 0;

/** A Redis client of the spec's own, closed after `body`. */
async function withClient(body: (redis: Redis, nodeId: string) => Promise<void>): Promise<void> {
  const redis = new Redis((await server).url);
  try {
    await body(redis, `claim-node-${++nodes}`);
  } finally {
    redis.disconnect();
  }
}

/** A claim taken by a run that then dies (kill -9): left in Redis, never refreshed nor released. */
async function deadRun(nodeId: string, stateDir: string, ttlMs: number): Promise<void> {
  const redis = new Redis((await server).url);
  await RedisNodeClaim.take(redis, { nodeId, stateDir, ttlMs });
  redis.disconnect();
}

test('a second store of a node id another running store holds is refused, naming the holder; the first keeps its queue', async () => {
  const { url } = await server;
  const nodeId = `claim-node-${++nodes}`;
  const first = await BullmqOutboxStore.connect({ url, nodeId, limits: ROOMY, stateDir: tempDir('weir-claim-') });
  try {
    const outbox = await first.open('billing');
    await outbox.append(entries(1, 2));
    const err = await BullmqOutboxStore.connect({ url, nodeId, limits: ROOMY, stateDir: tempDir('weir-claim-') }).catch((e: unknown) => e);
    assert.instance(err, NodeIdInUseError);
    assert.match((err as Error).message, `node.id "${nodeId}" is in use on this Redis by another running node (host `);
    assert.match((err as Error).message, `pid ${process.pid}`);
    // A node without a state dir of its own (no previous run) is refused too.
    assert.instance(await BullmqOutboxStore.connect({ url, nodeId, limits: ROOMY }).catch((e: unknown) => e), NodeIdInUseError);
    assert.is((await outbox.state()).pending, 2, 'nothing of the queue was taken by the refused one');
  } finally {
    await first.close();
  }
  // Released at close: another node may have the id now.
  const next = await BullmqOutboxStore.connect({ url, nodeId, limits: ROOMY, stateDir: tempDir('weir-claim-') });
  await next.close();
});

test('the same node started again after a kill -9 takes over the claim its dead run left; another node does not', () =>
  withClient(async (redis, nodeId) => {
    const stateDir = tempDir('weir-claim-');
    await deadRun(nodeId, stateDir, 60_000);
    const other = await RedisNodeClaim.take(redis, { nodeId, stateDir: tempDir('weir-claim-') }).catch((e: unknown) => e);
    assert.instance(other, NodeIdInUseError);
    const again = await RedisNodeClaim.take(redis, { nodeId, stateDir });
    await again.release();
    assert.is(await redis.exists(nodeClaimKey(nodeId)), 0, 'released');
  }));

test('a claim nobody refreshes lapses after its TTL, and then another node takes the id', () =>
  withClient(async (redis, nodeId) => {
    await deadRun(nodeId, tempDir('weir-claim-'), 300);
    assert.instance(await RedisNodeClaim.take(redis, { nodeId }).catch((e: unknown) => e), NodeIdInUseError);
    await sleep(400);
    const taken = await RedisNodeClaim.take(redis, { nodeId });
    await taken.release();
  }));

test('a running claim is refreshed, taken again when Redis lost it, and another node that took it meanwhile is told once', () =>
  withClient(async (redis, nodeId) => {
    const told: string[] = [];
    const claim = await RedisNodeClaim.take(redis, { nodeId, stateDir: tempDir('weir-claim-'), ttlMs: 600, onLost: (m) => told.push(m) });
    try {
      await sleep(900);
      assert.is(await redis.exists(nodeClaimKey(nodeId)), 1, 'refreshed past its TTL');
      // Redis restarted without its data: the next refresh takes the claim again.
      await redis.del(nodeClaimKey(nodeId));
      await waitFor(async () => (await redis.exists(nodeClaimKey(nodeId))) === 1, 2000, 'the claim taken again');
      assert.equal(told, []);
      // Another node took the id (the claim lapsed during an outage of this one's Redis).
      await redis.del(nodeClaimKey(nodeId));
      const thief = await RedisNodeClaim.take(redis, { nodeId, stateDir: tempDir('weir-claim-'), ttlMs: 60_000 });
      await waitFor(() => told.length > 0, 2000, 'the loss told');
      await sleep(500);
      assert.is(told.length, 1, 'told once');
      assert.match(told[0]!, `node.id "${nodeId}" was taken on Redis by another node`);
      await thief.release();
    } finally {
      await claim.release();
    }
  }));

test.run();
