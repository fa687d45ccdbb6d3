import { setTimeout as sleep } from 'node:timers/promises';
import * as assert from 'uvu/assert';
import { readRedisOutboxState } from '../../../actors/outbox/read-bullmq-outbox-state.js';
import { redisSuite } from '../../support/redis-server.js';
import { counts, entries } from './outbox-contract.js';
import { ids, withSpillSink, type SpillSink } from './spill-sink.js';

// A Redis out of memory under noeviction (maxmemory 1 byte here) refuses every write
// that may grow it, BullMQ's lease script among them; removals still run.
const { test, server } = redisSuite('Redis outbox: out of memory, lost locks');
/** A test on a fresh sink, closed after it; `leaseMs`: BullMQ's lock duration. */
const withSink = (body: (sink: SpillSink) => Promise<void>, leaseMs?: number) =>
  withSpillSink(server, leaseMs ? { leaseMs } : {})(body);

test('appends while Redis is out of memory go to the embedded store: delivered, no write block, no gap', withSink(async (sink) => {
  await sink.full(true);
  await sink.outbox.append(entries(1, 3));
  const s = await sink.outbox.state();
  assert.equal([s.outbox_storage.write_blocked, s.outbox_storage.write_blocked_reason, s.pending, s.replay_gaps], [false, null, 3, 0]);
  assert.match(s.last_error?.message ?? '', /Redis is out of memory/);
  const leased = await sink.outbox.lease(10);
  assert.equal(ids(leased), ['ev-1', 'ev-2', 'ev-3']);
  await sink.outbox.ack(ids(leased));
  assert.is((await sink.outbox.state()).total_delivered, 3);
}));

test('a backlog in Redis drains while it is out of memory: leases move the oldest waiting entries to the embedded store and free Redis', withSink(async (sink) => {
  await sink.outbox.append(entries(1, 5));
  await sink.full(true);
  const first = await sink.outbox.lease(2);
  assert.equal(ids(first), ['ev-1', 'ev-2'], 'the oldest first');
  assert.equal(first.map((e) => e.body), ['{"n":1}', '{"n":2}']);
  assert.is(await sink.admin.exists(`weir:${sink.nodeId}:sink:billing:ev-ev-1`), 0, 'the job left Redis');
  const rest = await sink.outbox.lease(10);
  assert.equal(ids(rest), ['ev-3', 'ev-4', 'ev-5']);
  await sink.outbox.ack([...ids(first), ...ids(rest)]);
  const s = await sink.outbox.state();
  assert.equal(counts(s), { pending: 0, total_delivered: 5, total_failed: 0, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes: 0 });
  await sink.full(false);
  // The connector's next poll: Redis takes the byte count it refused while full.
  assert.equal(await sink.outbox.lease(10), []);
  const redisPart = await readRedisOutboxState((await server).url, sink.nodeId, 'billing');
  assert.equal([redisPart.pending, redisPart.outbox_storage.bytes], [0, 0], 'nothing left in Redis, its byte count with it');
}));

test('retries that fall due while Redis is out of memory are delivered too', withSink(async (sink) => {
  await sink.outbox.append(entries(1, 3));
  await sink.outbox.lease(1);
  await sink.outbox.retry('ev-1', 'HTTP 503', Date.now() + 200);
  await sink.full(true);
  await sleep(300);
  // BullMQ's lease promotes a due retry (a removal first, so Redis runs it) and then
  // leases one job; the next lease is refused and moves the rest.
  const leased: string[] = [];
  for (let i = 0; i < 5 && leased.length < 3; i++) leased.push(...ids(await sink.outbox.lease(10)));
  assert.equal(leased.sort(), ['ev-1', 'ev-2', 'ev-3']);
  await sink.outbox.ack(leased);
  assert.equal(counts(await sink.outbox.state()), { pending: 0, total_delivered: 3, total_failed: 1, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes: 0 });
}));

test('acks and retries of leases taken before Redis ran out of memory settle, and the counters they owe land once it has room', withSink(async (sink) => {
  await sink.outbox.append(entries(1, 3));
  assert.equal(ids(await sink.outbox.lease(3)), ['ev-1', 'ev-2', 'ev-3']);
  await sink.full(true);
  await sink.outbox.ack(['ev-1', 'ev-2']);
  await sink.outbox.retry('ev-3', 'HTTP 503', Date.now());
  assert.equal(counts(await sink.outbox.state()), { pending: 1, total_delivered: 2, total_failed: 1, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes: 7 });
  await sink.full(false);
  assert.equal(ids(await sink.outbox.lease(10)), ['ev-3'], 'the retried entry is due again');
  await sink.outbox.ack(['ev-3']);
  // The next counter write carried what the refused ones owed: Redis alone now tells the truth.
  const redisPart = await readRedisOutboxState((await server).url, sink.nodeId, 'billing');
  assert.equal([redisPart.total_delivered, redisPart.total_failed, redisPart.outbox_storage.bytes], [3, 1, 0]);
}));

test('a batch Redis ran out of memory in the middle of: the entries it kept stay there, only the rest go to the embedded store', withSink(async (sink) => {
  const used = Number(/used_memory:(\d+)/.exec(await sink.admin.info('memory'))?.[1]);
  // Room for some of the batch, not all: the pipeline's bytes waiting in Redis's input
  // buffer count as used memory too, which decides which jobs get in (1 MiB and 400 KiB
  // jobs split the batch on this kind of machine).
  await sink.admin.config('SET', 'maxmemory', String(used + 1024 * 1024));
  const big = (i: number): string => JSON.stringify({ n: i, pad: 'x'.repeat(400 * 1024) });
  await sink.outbox.append(entries(1, 3, big));
  await sink.full(false);
  const redisPart = await readRedisOutboxState((await server).url, sink.nodeId, 'billing');
  assert.ok(redisPart.pending >= 1 && redisPart.pending < 3, `Redis kept part of the batch (${redisPart.pending} of 3)`);
  assert.is(redisPart.outbox_storage.bytes, redisPart.pending * big(1).length, 'only what Redis holds is counted there');
  const leased = [...(await sink.outbox.lease(10)), ...(await sink.outbox.lease(10))];
  assert.equal(ids(leased).sort(), ['ev-1', 'ev-2', 'ev-3'], 'each once: none is kept in both stores');
}));

test('a lease held past its lock settles: its ack moves the job with the expired lock', withSink(async (sink) => {
  await sink.outbox.append(entries(1, 2));
  assert.equal(ids(await sink.outbox.lease(2)), ['ev-1', 'ev-2']);
  await sleep(700);
  await sink.outbox.ack(['ev-1']);
  await sink.outbox.retry('ev-2', 'HTTP 503', Date.now());
  assert.equal(counts(await sink.outbox.state()), { pending: 1, total_delivered: 1, total_failed: 1, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes: 7 });
  assert.equal(ids(await sink.outbox.lease(10)), ['ev-2']);
}, 300));

test.run();
