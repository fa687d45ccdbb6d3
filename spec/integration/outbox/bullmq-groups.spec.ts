import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import * as assert from 'uvu/assert';
import type { EntrySettlement, OutboxAppend } from '../../../actors/contracts/outbox.js';
import { groupsOf, jobOpts, timed } from '../../../actors/outbox/bullmq-jobs.js';
import { sinkKeys, type SinkKeys } from '../../../actors/outbox/bullmq-keys.js';
import type { BullmqOutbox } from '../../../actors/outbox/bullmq-outbox.js';
import { OutboxUnavailable } from '../../../actors/outbox/outbox-errors.js';
import { BullmqOutboxStore } from '../../../actors/outbox/bullmq-outbox-store.js';
import { redisSuite, type RedisServer } from '../../support/redis-server.js';
import { bullmqDrain } from './bullmq-drain.js';
import { BullmqDelivery } from '../../../actors/outbox/bullmq-delivery.js';
import { waitFor } from '../../support/wait-for.js';
import { counts, entries, ROOMY } from '../../unit/outbox/outbox-contract.js';
import { sinkQueue } from '../../support/sink-queue.js';

// The Redis store keeps the events of one append in jobs of up to batch_size, delivered
// and settled together; pending, dead letters and the other counters still count events.
const { test, server } = redisSuite('Redis outbox: several events per job');
let nodes = 0;

interface GroupSink {
  outbox: BullmqOutbox;
  keys: SinkKeys;
  /** A client of its own on the sink's Redis, to change what the outbox holds. */
  admin: Redis;
  drain: (settle?: () => EntrySettlement) => Promise<string[]>;
  /** The keys of the sink's jobs and of their bodies, after the queue's base. */
  jobKeys: () => Promise<string[]>;
  close: () => Promise<void>;
}

async function openSink(redis: RedisServer, batchSize: number): Promise<GroupSink> {
  const nodeId = `group-node-${++nodes}`;
  const keys = sinkKeys(nodeId, 'billing');
  const store = await BullmqOutboxStore.connect({ url: redis.url, nodeId, limits: ROOMY });
  const outbox = await store.open('billing', { batchSize });
  const admin = new Redis(redis.url);
  return {
    outbox,
    keys,
    admin,
    drain: async (settle = () => ({ kind: 'ack' })) => (await bullmqDrain(redis.url, keys, settle)).map((e) => e.id),
    jobKeys: async () => (await admin.keys(`${keys.base}ev-*`)).map((k) => k.slice(keys.base.length)).sort(),
    close: async () => {
      admin.disconnect();
      await store.close();
    },
  };
}

const bytesOf = (list: OutboxAppend[]): number => list.reduce((n, e) => n + Buffer.byteLength(e.body), 0);
/** Events of about 9 KB: two make a job over INLINE_MAX_BYTES, whose bodies are kept beside it. */
const large = (from: number, to: number): OutboxAppend[] => entries(from, to, (i) => JSON.stringify({ n: i, pad: 'é'.repeat(4500) }));

test('an append is kept in jobs of up to batch_size events, delivered in order, and counted by event', async () => {
  const sink = await openSink(await server, 2);
  try {
    await sink.outbox.append(entries(1, 5));
    assert.equal(await sink.jobKeys(), ['ev-ev-1', 'ev-ev-3', 'ev-ev-5'], 'small jobs keep their bodies in their data');
    assert.equal(counts(await sink.outbox.state()), { pending: 5, total_delivered: 0, total_failed: 0, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes: bytesOf(entries(1, 5)) });
    assert.equal(await sink.drain(), ['ev-1', 'ev-2', 'ev-3', 'ev-4', 'ev-5']);
    assert.equal(counts(await sink.outbox.state()), { pending: 0, total_delivered: 5, total_failed: 0, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes: 0 });
  } finally {
    await sink.close();
  }
});

test('a job over 16 KiB keeps its bodies beside it until its delivery is counted, and delivers them as appended', async () => {
  const sink = await openSink(await server, 2);
  try {
    await sink.outbox.append(large(1, 3));
    assert.equal(await sink.jobKeys(), ['ev-ev-1', 'ev-ev-1:bodies', 'ev-ev-3']);
    assert.is((await sink.outbox.state()).outbox_storage.bytes, bytesOf(large(1, 3)));
    const delivered = await bullmqDrain((await server).url, sink.keys, () => ({ kind: 'ack' }));
    assert.equal(delivered.map((e) => [e.id, e.body]), large(1, 3).map((e) => [e.id, e.body]));
    assert.equal(await sink.jobKeys(), ['ev-ev-1', 'ev-ev-3'], 'the bodies go with the count; the completed jobs are kept');
    assert.equal(counts(await sink.outbox.state()), { pending: 0, total_delivered: 3, total_failed: 0, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes: 0 });
  } finally {
    await sink.close();
  }
});

test('a failed attempt of a job counts each of its events, and a retry holds them all', async () => {
  const sink = await openSink(await server, 3);
  try {
    await sink.outbox.append(entries(1, 3));
    await sink.drain(() => ({ kind: 'retry', error: 'receiver answered HTTP 503', notBeforeUnixMs: Date.now() + 60_000 }));
    const s = await sink.outbox.state();
    assert.equal([s.pending, s.total_failed, s.last_error?.message], [3, 3, 'receiver answered HTTP 503']);
  } finally {
    await sink.close();
  }
});

for (const [size, events] of [['small', entries], ['large', large]] as const) {
  test(`a dead ${size} job lists each event; replaying some of them sends those alone, with the rest still dead`, async () => {
    const sink = await openSink(await server, 3);
    const [one, two, three] = events(1, 3).map((e) => [e.id, e.body]);
    try {
      await sink.outbox.append(events(1, 3));
      await sink.drain(() => ({ kind: 'dead', error: 'receiver answered HTTP 400' }));
      const dead = await sink.outbox.listDeadLetters(10);
      assert.equal(dead.map((d) => [d.id, d.body, d.error]), [one, two, three].map((e) => [...e!, 'receiver answered HTTP 400']));
      assert.equal((await sink.outbox.listDeadLetters(2)).map((d) => d.id), ['ev-1', 'ev-2'], 'the limit counts events');
      assert.equal(counts(await sink.outbox.state()), { pending: 0, total_delivered: 0, total_failed: 3, replay_gaps: 0, dead_letters: 3, write_blocked: false, bytes: bytesOf(events(1, 3)) });

      assert.is(await sink.outbox.replayDeadLetters(['ev-2']), 1);
      let s = await sink.outbox.state();
      assert.equal([s.pending, s.dead_letters], [1, 2]);
      assert.equal(await sink.drain(), ['ev-2']);
      assert.equal((await sink.outbox.listDeadLetters(10)).map((d) => [d.id, d.body]), [one, three]);
      assert.is(await sink.outbox.replayDeadLetters(), 2);
      const delivered = await bullmqDrain((await server).url, sink.keys, () => ({ kind: 'ack' }));
      assert.equal(delivered.map((e) => [e.id, e.body]), [one, three]);
      s = await sink.outbox.state();
      assert.equal(counts(s), { pending: 0, total_delivered: 3, total_failed: 3, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes: 0 });
    } finally {
      await sink.close();
    }
  });
}

test('a replayed event keeps its append time and carries the replay time', async () => {
  const sink = await openSink(await server, 2);
  try {
    await sink.outbox.append(entries(1, 2));
    await sink.drain(() => ({ kind: 'dead', error: 'receiver answered HTTP 400' }));
    const [first] = await sink.outbox.listDeadLetters(1);
    await sink.outbox.replayDeadLetters(['ev-1']);
    const [pendingAgain] = (await sink.outbox.listDeadLetters(10)).filter((d) => d.id === 'ev-1');
    assert.is(pendingAgain, undefined, 'ev-1 is no dead letter now');
    const { url } = await server;
    const seen: { id: string; enqueued: number; replayed: number | null }[] = [];
    await bullmqDrain(url, sink.keys, (e) => {
      seen.push({ id: e.id, enqueued: e.enqueued_at_unix_ms, replayed: e.replayed_at_unix_ms });
      return { kind: 'ack' };
    });
    assert.equal(seen.map((e) => [e.id, e.enqueued]), [['ev-1', first!.enqueued_at_unix_ms]]);
    assert.ok(seen[0]!.replayed !== null && seen[0]!.replayed >= first!.dead_at_unix_ms, 'stamped with the replay');
  } finally {
    await sink.close();
  }
});

test('an append Redis ran late, added again under the same job ids, is held, delivered and counted once', async () => {
  const sink = await openSink(await server, 3);
  try {
    // A hung Redis: the add times out, and it runs later.
    const queue = sink.outbox['p'].queue;
    const add = queue.addBulk.bind(queue);
    let ranLate: Promise<unknown> = Promise.resolve();
    queue.addBulk = async (jobs) => {
      ranLate = sleep(300).then(() => add(jobs));
      throw new Error('Command timed out');
    };
    const err = await sink.outbox.append(large(1, 3)).catch((e: unknown) => e);
    assert.instance(err, OutboxUnavailable);
    queue.addBulk = add;
    await ranLate;
    assert.equal(await sink.jobKeys(), ['ev-ev-1', 'ev-ev-1:bodies']);
    assert.is((await sink.outbox.state()).pending, 0, 'a job whose add failed is not counted yet');
    // What the outage journal's move does with the entries the failed append kept there.
    await sink.outbox.add(timed(groupsOf(large(1, 3), 3), Date.now()));
    await sink.outbox.add(timed(groupsOf(large(1, 3), 3), Date.now()));
    assert.equal(await sink.jobKeys(), ['ev-ev-1', 'ev-ev-1:bodies'], 'one job');
    assert.is((await sink.outbox.state()).pending, 3, 'counted once');
    assert.equal(await sink.drain(), ['ev-1', 'ev-2', 'ev-3']);
    await sink.outbox.add(timed(groupsOf(large(1, 3), 3), Date.now()));
    assert.equal(await sink.drain(), [], 'a delivered job added again is held (its id is kept) and not delivered again');
    assert.equal(await sink.jobKeys(), ['ev-ev-1'], 'and no bodies are written for it');
    const s = await sink.outbox.state();
    assert.equal([s.total_delivered, s.pending], [3, 0]);
  } finally {
    await sink.close();
  }
});

test('a job written with one event in the older shape is delivered and counted', async () => {
  const redis = await server;
  const sink = await openSink(redis, 100);
  // A job in the shape an earlier weir wrote: one envelope, its fields at the top.
  const queue = sinkQueue<object>(redis.url, sink.keys);
  try {
    await queue.add('envelope', { event_id: 'ev-7', sequence: 7, body: '{"n":7}', replayed_at_unix_ms: null }, jobOpts('ev-ev-7', Date.now()));
    assert.equal(await sink.drain(), ['ev-7']);
    const s = await sink.outbox.state();
    assert.equal([s.total_delivered, s.pending], [1, 0], 'its delivery counted; its pending count was the writer\'s');
  } finally {
    await queue.close();
    await sink.close();
  }
});

test('a job whose bodies are missing is held until the move writes them, then delivered once', async () => {
  const redis = await server;
  const sink = await openSink(redis, 3);
  const { keys } = sink;
  try {
    await sink.outbox.append(large(1, 3));
    // As if the write of the bodies failed and the add went through.
    await sink.admin.del(`${keys.base}ev-ev-1:bodies`);
    assert.equal(await sink.drain(), [], 'not delivered without its bodies');
    let s = await sink.outbox.state();
    assert.equal([s.pending, s.total_failed, s.dead_letters], [3, 0, 0], 'held, not failed');
    await sink.outbox.add(timed(groupsOf(large(1, 3), 3), Date.now()));
    const seen: string[] = [];
    const delivery = new BullmqDelivery({ url: redis.url, keys, concurrency: 1, deliver: async (list) => (seen.push(...list.map((e) => e.id)), { kind: 'ack' }) });
    try {
      await waitFor(async () => (await sink.outbox.state()).total_delivered === 3, 10_000, 'the held job delivered');
    } finally {
      await delivery.close();
    }
    assert.equal(seen, ['ev-1', 'ev-2', 'ev-3']);
    s = await sink.outbox.state();
    assert.equal([s.pending, s.total_failed, s.dead_letters], [0, 0, 0]);
  } finally {
    await sink.close();
  }
});

test('a job counted delivered whose worker died before BullMQ completed it is completed, not sent again', async () => {
  const sink = await openSink(await server, 3);
  try {
    await sink.outbox.append(large(1, 3));
    // What the count of its delivery leaves: the mark on the job, its bodies gone.
    await sink.admin.hset(`${sink.keys.base}ev-ev-1`, 'weir_delivered', '1');
    await sink.admin.del(`${sink.keys.base}ev-ev-1:bodies`);
    assert.equal(await sink.drain(), []);
    const queue = sink.outbox['p'].queue;
    assert.equal(await queue.getJobCounts('completed', 'failed', 'delayed'), { completed: 1, failed: 0, delayed: 0 });
  } finally {
    await sink.close();
  }
});

test.run();
