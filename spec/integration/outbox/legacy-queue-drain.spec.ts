import { Redis } from 'ioredis';
import * as assert from 'uvu/assert';
import { jobOpts } from '../../../actors/outbox/bullmq-jobs.js';
import { legacySinkKeys, sinkKeys } from '../../../actors/outbox/bullmq-keys.js';
import type { BullmqOutbox } from '../../../actors/outbox/bullmq-outbox.js';
import { BullmqOutboxStore } from '../../../actors/outbox/bullmq-outbox-store.js';
import { redisSuite } from '../../support/redis-server.js';
import { bullmqDrain } from './bullmq-drain.js';
import { entries, ROOMY } from '../../unit/outbox/outbox-contract.js';
import { sinkQueue } from '../../support/sink-queue.js';

// A Redis written by weir before the hash tag: a sink's queue under `weir:<node>:sink`.
const { test, server } = redisSuite('Redis outbox: a queue of the old key layout');

/** Writes what the old node left: jobs added by BullMQ under the old prefix, its counters and a gap. */
async function writeOldLayout(nodeId: string): Promise<void> {
  const { url } = await server;
  const old = legacySinkKeys(nodeId, 'billing');
  const queue = sinkQueue(url, old);
  const admin = new Redis(url);
  try {
    const now = Date.now();
    // The old layout's jobs carry their bodies in their data.
    await queue.addBulk([
      { name: 'envelope', data: { events: entries(11, 12), replayed_at_unix_ms: null }, opts: jobOpts('ev-11', now) },
      { name: 'envelope', data: { events: entries(13, 13), replayed_at_unix_ms: null }, opts: { ...jobOpts('ev-13', now), delay: 60_000 } },
    ]);
    await admin.hset(old.state, 'total_delivered', 10, 'total_failed', 2, 'replay_gaps', 1, 'pending', 3);
    await admin.rpush(old.gaps, JSON.stringify({ from_sequence: 4, to_sequence: 5, at_unix_ms: now }));
  } finally {
    admin.disconnect();
    await queue.close();
  }
}

/** Runs `body` with the sink `billing` of a store of node `nodeId` on the suite's Redis, as a node's start opens it; closes the store after. */
async function withOpenedSink(nodeId: string, body: (outbox: BullmqOutbox, url: string) => Promise<void>): Promise<void> {
  const { url } = await server;
  const store = await BullmqOutboxStore.connect({ url, nodeId, limits: ROOMY });
  try {
    await body(await store.open('billing'), url);
  } finally {
    await store.close();
  }
}

test('a node opening its sink moves the old queue into the new one by the same job ids, with its counters, and deletes the old keys', async () => {
  const nodeId = 'old-layout-node';
  await writeOldLayout(nodeId);
  await withOpenedSink(nodeId, async (outbox, url) => {
    const moved = await outbox.state();
    assert.is(moved.pending, 3);
    assert.is(moved.total_delivered, 10);
    assert.is(moved.replay_gaps, 1);
    assert.equal(moved.gaps.map((g) => [g.from_sequence, g.to_sequence]), [[4, 5]]);
    const admin = new Redis(url);
    assert.equal(await admin.keys('weir:old-layout-node:*').finally(() => admin.disconnect()), []);
    // The delayed job is moved as pending: it is delivered now, with the others.
    const delivered = await bullmqDrain(url, sinkKeys(nodeId, 'billing'), () => ({ kind: 'ack' }));
    assert.equal(delivered.map((e) => e.id).sort(), ['ev-11', 'ev-12', 'ev-13']);
    const after = await outbox.state();
    assert.is(after.pending, 0);
    assert.is(after.total_delivered, 13);
  });
});

test('opening the sink again moves nothing twice', async () => {
  const nodeId = 'old-layout-twice';
  await writeOldLayout(nodeId);
  for (let run = 0; run < 2; run++) {
    await withOpenedSink(nodeId, async (outbox) => {
      const state = await outbox.state();
      assert.is(state.pending, 3);
      assert.is(state.total_delivered, 10);
    });
  }
});

test.run();
