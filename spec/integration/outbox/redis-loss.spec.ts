import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import * as assert from 'uvu/assert';
import type { Outbox, OutboxState } from '../../../actors/contracts/outbox.js';
import { jobIdFor, sinkKeys } from '../../../actors/outbox/bullmq-keys.js';
import { BullmqOutboxStore } from '../../../actors/outbox/bullmq-outbox-store.js';
import { readRedisOutboxState } from '../../../cli/sink-outbox-state.js';
import { redisSuite } from '../../support/redis-server.js';
import { tempDir } from '../../support/temp-dir.js';
import { bullmqDrain } from './bullmq-drain.js';
import { entries, ROOMY } from '../../unit/outbox/outbox-contract.js';

// Redis losing a sink's outbox (redis-loss-watch.ts): FLUSHALL stands for a Redis
// restarted without its data.
const { test, server } = redisSuite('Redis outbox: a loss of its data');
let nodes = 0;

/**
 * Runs `read` once, inside the next append: after it wrote the `enqueued` entries,
 * before it added their jobs. A state read that lands there under load (the sink
 * refreshes its state every 250 ms) must keep those entries.
 */
async function appendAround(outbox: Outbox, from: number, to: number, read: () => Promise<unknown>): Promise<void> {
  const addBulk = Queue.prototype.addBulk;
  Queue.prototype.addBulk = async function (this: Queue, ...args: Parameters<Queue['addBulk']>) {
    Queue.prototype.addBulk = addBulk;
    await read();
    return addBulk.apply(this, args);
  };
  try {
    await outbox.append(entries(from, to));
  } finally {
    Queue.prototype.addBulk = addBulk;
  }
}

const gapsOf = (s: OutboxState): [number, number][] => s.gaps.map((g) => [g.from_sequence, g.to_sequence]);

/** A running node's store with the sink `billing` open, and a Redis connection of the spec's own beside it. */
async function withRunningNode(run: (p: { url: string; nodeId: string; outbox: Outbox; admin: Redis }) => Promise<void>): Promise<void> {
  const { url } = await server;
  const nodeId = `loss-node-${++nodes}`;
  const store = await BullmqOutboxStore.connect({ url, nodeId, limits: ROOMY });
  const admin = new Redis(url);
  try {
    await run({ url, nodeId, outbox: await store.open('billing'), admin });
  } finally {
    admin.disconnect();
    await store.close();
  }
}

test('a state read in the middle of an append keeps its events in view: Redis losing them while the node is stopped makes them a gap', async () => {
  const { url } = await server;
  const opts = { url, nodeId: `loss-node-${++nodes}`, limits: ROOMY, stateDir: tempDir('weir-redis-loss-') };
  const store = await BullmqOutboxStore.connect(opts);
  try {
    const outbox = await store.open('billing');
    await appendAround(outbox, 1, 3, () => outbox.state());
    const before = await outbox.state();
    assert.is(before.pending, 3);
    assert.ok(before.oldest_pending_age_ms !== null, 'the oldest pending entry is known');
  } finally {
    await store.close();
  }

  const admin = new Redis(url);
  await admin.flushall();
  admin.disconnect();
  const again = await BullmqOutboxStore.connect({ ...opts, runFirstSequence: 4 });
  try {
    const after = await (await again.open('billing')).state();
    assert.equal([after.replay_gaps, gapsOf(after)], [1, [[1, 3]]]);
  } finally {
    await again.close();
  }
});

test('readRedisOutboxState beside a running node leaves the events of an append under way alone', () =>
  withRunningNode(async ({ url, nodeId, outbox, admin }) => {
    await appendAround(outbox, 1, 2, () => readRedisOutboxState(url, nodeId, 'billing'));
    assert.ok((await outbox.state()).oldest_pending_age_ms !== null, 'the oldest pending entry is known');
    await admin.flushall();
    assert.equal(gapsOf(await outbox.state()), [[1, 2]], 'lost while the node runs');
  }));

test('an `enqueued` member a settled event left behind is dropped by the next read, and not taken for the oldest pending one', () =>
  withRunningNode(async ({ url, nodeId, outbox, admin }) => {
    await outbox.append(entries(1, 2));
    await bullmqDrain(url, sinkKeys(nodeId, 'billing'), (e) => (e.id === 'ev-1' ? { kind: 'ack' } : { kind: 'retry', error: 'HTTP 503', notBeforeUnixMs: Date.now() + 60_000 }));
    // As a crash between the job's completion and its ZREM leaves it, an hour old.
    const { enqueued } = sinkKeys(nodeId, 'billing');
    await admin.zadd(enqueued, Date.now() - 3_600_000, jobIdFor('ev-1'));
    const s = await outbox.state();
    assert.is(s.pending, 1);
    assert.ok(s.oldest_pending_age_ms! < 60_000, `oldest_pending_age_ms ${s.oldest_pending_age_ms}`);
    assert.equal(await admin.zrange(enqueued, 0, -1), [jobIdFor('ev-2')]);
  }));

test.run();
