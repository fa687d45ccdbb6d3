import * as assert from 'uvu/assert';
import { readRedisOutboxState } from '../../../actors/outbox/read-bullmq-outbox-state.js';
import { redisSuite } from '../../support/redis-server.js';
import { counts, entries } from './outbox-contract.js';
import { ids, withSpillSink } from './spill-sink.js';

// A Redis out of memory under noeviction (maxmemory 1 byte here) refuses every write
// that may grow it, the script that moves a job to a worker among them; removals still run.
const { test, server } = redisSuite('Redis outbox: out of memory');
const withSink = withSpillSink(server);

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

test('a backlog in Redis drains while it is out of memory: once an append finds it full, leases move the oldest waiting entries to the embedded store and free Redis', withSink(async (sink) => {
  await sink.outbox.append(entries(1, 5));
  await sink.full(true);
  await sink.outbox.append(entries(6, 6));
  const leased = await sink.outbox.lease(10);
  assert.equal(ids(leased), ['ev-6', 'ev-1', 'ev-2', 'ev-3', 'ev-4', 'ev-5'], 'the new entry, then the backlog oldest first');
  assert.equal(leased[1]!.body, '{"n":1}');
  assert.is(await sink.admin.exists(`weir:${sink.nodeId}:sink:billing:ev-ev-1`), 0, 'the job left Redis');
  await sink.outbox.ack(ids(leased));
  const s = await sink.outbox.state();
  assert.equal(counts(s), { pending: 0, total_delivered: 6, total_failed: 0, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes: 0 });
  await sink.full(false);
  // The next state read: Redis takes the byte count it refused while full.
  await sink.outbox.state();
  const redisPart = await readRedisOutboxState((await server).url, sink.nodeId, 'billing');
  assert.equal([redisPart.pending, redisPart.outbox_storage.bytes], [0, 0], 'nothing left in Redis, its byte count with it');
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
  const delivered = [...(await sink.outbox.lease(10)), ...(await sink.drainRedis())];
  assert.equal(ids(delivered).sort(), ['ev-1', 'ev-2', 'ev-3'], 'each once: none is kept in both stores');
}));

test.run();
