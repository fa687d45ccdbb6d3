import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import * as assert from 'uvu/assert';
import { groupsOf, timed } from '../../../actors/outbox/bullmq-jobs.js';
import type { BullmqOutbox } from '../../../actors/outbox/bullmq-outbox.js';
import { BullmqDelivery } from '../../../actors/outbox/bullmq-delivery.js';
import { sinkKeys } from '../../../actors/outbox/bullmq-keys.js';
import { BullmqOutboxStore } from '../../../actors/outbox/bullmq-outbox-store.js';
import { OutboxUnavailable, OutboxWriteBlocked } from '../../../actors/outbox/outbox-errors.js';
import { readRedisOutboxState } from '../../../cli/sink-outbox-state.js';
import { settlesBeforeFar } from '../../support/far-bound.js';
import { redisSuite, type RedisServer } from '../../support/redis-server.js';
import { tempDir } from '../../support/temp-dir.js';
import { waitFor } from '../../support/wait-for.js';
import { bullmqDrain } from './bullmq-drain.js';
import { counts, entries, ROOMY } from '../../unit/outbox/outbox-contract.js';

const { test, server } = redisSuite('Redis outbox faults');
let nodes = 0;

async function openSink(redis: RedisServer, nodeId = `fault-node-${++nodes}`): Promise<{ store: BullmqOutboxStore; outbox: BullmqOutbox; nodeId: string; stateDir: string }> {
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
  const { store, outbox, nodeId } = await openSink(redis);
  try {
    await outbox.append(entries(1, 50));
    await outbox.recordGap({ from_sequence: 51, to_sequence: 52, at_unix_ms: 9 }, false);
    await redis.kill9();
    await redis.restart();
    await eventually(() => outbox.state());
    const delivered = await bullmqDrain(redis.url, sinkKeys(nodeId, 'billing'), () => ({ kind: 'ack' }));
    assert.equal(
      delivered.map((e) => e.sequence),
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    assert.equal(counts(await outbox.state()), { pending: 0, total_delivered: 50, total_failed: 0, replay_gaps: 1, dead_letters: 0, write_blocked: false, bytes: 0 });
  } finally {
    await store.close();
  }
});

test('append fails fast with OUTBOX_UNAVAILABLE while Redis is down, keeping nothing, and works once it is back', async () => {
  const redis = await server;
  const { store, outbox, nodeId } = await openSink(redis);
  try {
    await outbox.append(entries(1, 2));
    await redis.kill9();
    // Redis stays down until the append settles: an append that waited for it would lose the race.
    const err = await settlesBeforeFar(outbox.append(entries(3, 4)).catch((e: unknown) => e), 'the append while Redis is down');
    assert.instance(err, OutboxUnavailable);
    assert.is((err as OutboxUnavailable).code, 'OUTBOX_UNAVAILABLE');
    await redis.restart();
    await eventually(() => outbox.append(entries(5, 5)));
    assert.is((await outbox.state()).outbox_storage.bytes, 21, 'the refused append was not counted');
    assert.equal(
      (await bullmqDrain(redis.url, sinkKeys(nodeId, 'billing'), () => ({ kind: 'ack' }))).map((e) => e.id),
      ['ev-1', 'ev-2', 'ev-5'],
    );
  } finally {
    await store.close();
  }
});

test('jobs a worker held when it died are delivered by another worker once their lock lapses, and counted once', async () => {
  const redis = await server;
  const { store, outbox, nodeId } = await openSink(redis);
  const keys = sinkKeys(nodeId, 'billing');
  const held: string[] = [];
  // A worker that takes jobs and never settles them, then stops renewing its locks.
  const dying = new BullmqDelivery({
    url: redis.url,
    keys,
    concurrency: 2,
    lockMs: 1000,
    stalledCheckMs: 500,
    deliver: (jobEntries) => {
      held.push(...jobEntries.map((e) => e.id));
      return new Promise(() => undefined);
    },
  });
  try {
    await outbox.append(entries(1, 3));
    await waitFor(() => held.length === 2, 5000, 'the dying worker holding two jobs');
    await dying.close(true);
    const delivered = await bullmqDrain(redis.url, keys, () => ({ kind: 'ack' }));
    assert.equal(delivered.map((e) => e.id).sort(), ['ev-1', 'ev-2', 'ev-3']);
    assert.equal(counts(await outbox.state()), { pending: 0, total_delivered: 3, total_failed: 0, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes: 0 });
  } finally {
    await dying.close(true);
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

test('readRedisOutboxState reads a sink as the node does', async () => {
  const redis = await server;
  const { store, outbox, nodeId } = await openSink(redis);
  try {
    await outbox.append(entries(1, 2));
    await bullmqDrain(redis.url, sinkKeys(nodeId, 'billing'), (e) => (e.id === 'ev-1' ? { kind: 'ack' } : { kind: 'dead', error: 'HTTP 400' }));
    await outbox.append(entries(3, 3));
    const offline = await readRedisOutboxState(redis.url, nodeId, 'billing');
    assert.equal(counts(offline), counts(await outbox.state()));
    assert.equal(counts(offline), { pending: 1, total_delivered: 1, total_failed: 1, replay_gaps: 0, dead_letters: 1, write_blocked: false, bytes: 14 });
    assert.is(offline.last_error?.message, 'HTTP 400');
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

test('an append that timed out on a paused Redis and ran once it resumed counts nothing until its jobs are added again, then once', async () => {
  const redis = await server;
  const { store, outbox } = await openSink(redis);
  const late = entries(1, 3);
  try {
    redis.freeze();
    const err = await settlesBeforeFar(outbox.append(late).then(() => null, (e: unknown) => e), 'the append to a paused Redis');
    assert.instance(err, OutboxUnavailable);
    redis.thaw();
    assert.equal(counts(await outbox.state()), { pending: 0, total_delivered: 0, total_failed: 0, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes: 0 });
    // The outage journal's move adds the same jobs again.
    await outbox.add(timed(groupsOf(late, 1), Date.now()));
    const bytes = late.reduce((n, e) => n + Buffer.byteLength(e.body), 0);
    assert.equal(counts(await outbox.state()), { pending: 3, total_delivered: 0, total_failed: 0, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes });
  } finally {
    redis.thaw();
    await store.close();
  }
});

test.run();
