import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import * as assert from 'uvu/assert';
import type { Outbox } from '../../../actors/contracts/outbox.js';
import { sinkKeys } from '../../../actors/outbox/bullmq-keys.js';
import { BullmqOutboxStore } from '../../../actors/outbox/bullmq-outbox-store.js';
import { OutboxUnavailable, OutboxWriteBlocked } from '../../../actors/outbox/outbox-errors.js';
import { readRedisOutboxState } from '../../../actors/outbox/read-bullmq-outbox-state.js';
import { settlesBeforeFar } from '../../support/far-bound.js';
import { redisSuite, type RedisServer } from '../../support/redis-server.js';
import { tempDir } from '../../support/temp-dir.js';
import { counts, entries, ROOMY } from './outbox-contract.js';

const { test, server } = redisSuite('Redis outbox faults');
let nodes = 0;

async function openSink(redis: RedisServer, nodeId = `fault-node-${++nodes}`): Promise<{ store: BullmqOutboxStore; outbox: Outbox; nodeId: string; stateDir: string }> {
  const stateDir = tempDir('weir-faults-');
  const store = await BullmqOutboxStore.connect({ url: redis.url, nodeId, limits: ROOMY, stateDir });
  return { store, outbox: await store.open('billing'), nodeId, stateDir };
}

/** Retries `call` until it resolves (the store reconnects by itself), for at most 10 s. */
async function eventually<T>(call: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return await call();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(100);
    }
  }
}

test('committed entries survive a kill -9 and restart of Redis (AOF), and the store reconnects by itself', async () => {
  const redis = await server;
  const { store, outbox } = await openSink(redis);
  try {
    await outbox.append(entries(1, 50));
    await outbox.recordGap({ from_sequence: 51, to_sequence: 52, at_unix_ms: 9 }, false);
    await redis.kill9();
    await redis.restart();
    const leased = await eventually(() => outbox.lease(100));
    assert.equal(
      leased.map((e) => e.sequence),
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    await outbox.ack(leased.map((e) => e.id));
    assert.equal(counts(await outbox.state()), { pending: 0, total_delivered: 50, total_failed: 0, replay_gaps: 1, dead_letters: 0, write_blocked: false, bytes: 0 });
  } finally {
    await store.close();
  }
});

test('append fails fast with OUTBOX_UNAVAILABLE while Redis is down, keeping nothing, and works once it is back', async () => {
  const redis = await server;
  const { store, outbox } = await openSink(redis);
  try {
    await outbox.append(entries(1, 2));
    await redis.kill9();
    // Redis stays down until the append settles: an append that waited for it would lose the race.
    const err = await settlesBeforeFar(outbox.append(entries(3, 4)).catch((e: unknown) => e), 'the append while Redis is down');
    assert.instance(err, OutboxUnavailable);
    assert.is((err as OutboxUnavailable).code, 'OUTBOX_UNAVAILABLE');
    const leaseErr = await outbox.lease(5).catch((e: unknown) => e);
    assert.instance(leaseErr, OutboxUnavailable, 'lease fails fast too');
    await redis.restart();
    await eventually(() => outbox.append(entries(5, 5)));
    // The worker's connection comes back on its own schedule.
    assert.equal(
      (await eventually(() => outbox.lease(10))).map((e) => e.id),
      ['ev-1', 'ev-2', 'ev-5'],
    );
    assert.is((await outbox.state()).outbox_storage.bytes, 21, 'the refused append was not counted');
  } finally {
    await store.close();
  }
});

test('a node that died holding leases gets its entries back, in order, when it opens the sink again', async () => {
  const redis = await server;
  const dead = await openSink(redis);
  // The same node (its state dir) started again: it takes over the claim of its id the dead run left.
  const store = await BullmqOutboxStore.connect({ url: redis.url, nodeId: dead.nodeId, limits: ROOMY, stateDir: dead.stateDir }).catch(async (err: unknown) => {
    await dead.store.close();
    throw err;
  });
  try {
    await dead.outbox.append(entries(1, 3));
    assert.equal((await dead.outbox.lease(2)).map((e) => e.id), ['ev-1', 'ev-2']);
    // The restarted node opens the sink while the dead one's jobs are still active.
    const restarted = await store.open('billing');
    assert.equal(
      (await restarted.lease(10)).map((e) => e.id),
      ['ev-1', 'ev-2', 'ev-3'],
    );
  } finally {
    await dead.store.close();
    await store.close();
  }
});

test('a job left active that no lease holds (Redis ran the lease, then died before its reply) is leased again, without a restart', async () => {
  const redis = await server;
  const nodeId = `fault-node-${++nodes}`;
  const store = await BullmqOutboxStore.connect({ url: redis.url, nodeId, limits: ROOMY, stateDir: tempDir('weir-faults-'), orphanSweepMs: 100 });
  const keys = sinkKeys(nodeId, 'billing');
  // The lease whose reply was lost: the job moved to active under a lock, in no lease of the node.
  const lost = new Worker(keys.queue, null, { connection: { url: redis.url, maxRetriesPerRequest: null }, prefix: keys.prefix, autorun: false });
  try {
    const outbox = await store.open('billing');
    await outbox.append(entries(1, 3));
    assert.is((await lost.getNextJob('reply-lost', { block: false }))?.data.event_id, 'ev-1');
    assert.equal((await outbox.lease(10)).map((e) => e.id), ['ev-2', 'ev-3']);
    await outbox.ack(['ev-2', 'ev-3']);
    // Two sweeps (100 ms apart) find it active and unheld.
    const deadline = Date.now() + 5000;
    let again: string[] = [];
    while (again.length === 0 && Date.now() < deadline) {
      await sleep(60);
      again = (await outbox.lease(10)).map((e) => e.id);
    }
    assert.equal(again, ['ev-1']);
    await outbox.ack(again);
    assert.equal(counts(await outbox.state()), { pending: 0, total_delivered: 3, total_failed: 0, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes: 0 });
  } finally {
    await lost.close(true);
    await store.close();
  }
});

test('the sweep leaves a lease under way and the node\'s own leases alone', async () => {
  const redis = await server;
  const { store, outbox } = await (async () => {
    const nodeId = `fault-node-${++nodes}`;
    const s = await BullmqOutboxStore.connect({ url: redis.url, nodeId, limits: ROOMY, stateDir: tempDir('weir-faults-'), orphanSweepMs: 50 });
    return { store: s, outbox: await s.open('billing') };
  })();
  try {
    await outbox.append(entries(1, 2));
    const held = (await outbox.lease(1)).map((e) => e.id);
    assert.equal(held, ['ev-1']);
    // Sweeps run with each lease; the held one is never handed out twice.
    for (let i = 0; i < 6; i++) {
      await sleep(60);
      const more = (await outbox.lease(10)).map((e) => e.id);
      assert.not.ok(more.includes('ev-1'), `ev-1 leased again while held: ${more.join(',')}`);
      if (more.length > 0) await outbox.ack(more);
    }
    await outbox.ack(held);
    assert.is((await outbox.state()).pending, 0);
  } finally {
    await store.close();
  }
});

test('a Redis out of memory blocks writes as store_full until it has room again', async () => {
  const redis = await server;
  const { store, outbox } = await openSink(redis);
  const admin = new Redis(redis.url);
  try {
    await admin.config('SET', 'maxmemory', '1');
    const err = await outbox.append(entries(1, 1)).catch((e: unknown) => e);
    assert.instance(err, OutboxWriteBlocked);
    assert.is((err as OutboxWriteBlocked).reason, 'store_full');
    assert.is((await outbox.state()).outbox_storage.write_blocked_reason, 'store_full');
    await admin.config('SET', 'maxmemory', '0');
    await outbox.append(entries(2, 2));
    const s = await outbox.state();
    assert.equal([s.outbox_storage.write_blocked, s.pending], [false, 1]);
  } finally {
    await admin.config('SET', 'maxmemory', '0');
    admin.disconnect();
    await store.close();
  }
});

test('readRedisOutboxState reads a sink without touching its leases', async () => {
  const redis = await server;
  const { store, outbox, nodeId } = await openSink(redis);
  try {
    await outbox.append(entries(1, 3));
    await outbox.lease(2);
    await outbox.ack(['ev-1']);
    await outbox.deadLetter('ev-2', 'HTTP 400');
    const offline = await readRedisOutboxState(redis.url, nodeId, 'billing');
    assert.equal(counts(offline), counts(await outbox.state()));
    assert.equal(counts(offline), { pending: 1, total_delivered: 1, total_failed: 1, replay_gaps: 0, dead_letters: 1, write_blocked: false, bytes: 14 });
    assert.is(offline.last_error?.message, 'HTTP 400');
    assert.equal((await outbox.lease(10)).map((e) => e.id), ['ev-3']);
  } finally {
    await store.close();
  }
});

test('readRedisOutboxState rejects when Redis cannot be reached', async () => {
  const err = await readRedisOutboxState('redis://127.0.0.1:1', 'n', 'billing').catch((e: unknown) => e);
  assert.instance(err, Error);
});

test('an append to a Redis that stopped answering fails as unavailable instead of waiting for it', async () => {
  const redis = await server;
  const { store, outbox } = await openSink(redis);
  try {
    // Frozen until the spec thaws it: only a timeout of the store's own ends the append.
    redis.freeze();
    const err = await settlesBeforeFar(
      outbox.append(entries(1, 3)).then(
        () => null,
        (e: unknown) => e,
      ),
      'the append to a paused Redis',
    );
    assert.instance(err, OutboxUnavailable);
  } finally {
    redis.thaw();
    await store.close();
  }
});

test('bytes an append counted after it had timed out on a paused Redis are cleared by the next empty lease', async () => {
  const redis = await server;
  const { store, outbox } = await openSink(redis);
  const late = entries(1, 3);
  try {
    redis.freeze();
    const err = await settlesBeforeFar(outbox.append(late).then(() => null, (e: unknown) => e), 'the append to a paused Redis');
    assert.instance(err, OutboxUnavailable);
    redis.thaw();
    // Redis runs the timed-out count once it resumes: bytes with no job behind them.
    const counted = late.reduce((n, e) => n + Buffer.byteLength(e.body), 0);
    await eventually(async () => assert.is((await outbox.state()).outbox_storage.bytes, counted));
    assert.equal(await outbox.lease(10), []);
    assert.equal(counts(await outbox.state()), { pending: 0, total_delivered: 0, total_failed: 0, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes: 0 });
  } finally {
    redis.thaw();
    await store.close();
  }
});

test.run();
