import { setTimeout as sleep } from 'node:timers/promises';
import * as assert from 'uvu/assert';
import { sinkKeys } from '../../../actors/outbox/bullmq-keys.js';
import { groupsOf } from '../../../actors/outbox/bullmq-jobs.js';
import { journalEntries, journalJobs } from '../../../actors/outbox/outage-journal.js';
import { redisSuite } from '../../support/redis-server.js';
import { waitFor } from '../../support/wait-for.js';
import { counts, entries } from '../../unit/outbox/outbox-contract.js';
import { ids, openJournaledSink, withJournaledSink, type JournaledSink } from './journaled-sink.js';
import { sinkQueue } from '../../support/sink-queue.js';

const { test, server } = redisSuite('Redis outbox: the outage journal');
const withSink = withJournaledSink(server);

/** Waits until the journal is empty: everything it held is in the queue. */
async function moved(sink: JournaledSink): Promise<void> {
  await waitFor(async () => (await sink.journal.state()).pending === 0, 15_000, 'the journal moved into the queue', 100);
}

test('appends while Redis is out of memory go to the journal, count in pending, and move into the queue once it has room: delivered and counted once', withSink(async (sink) => {
  await sink.full(true);
  await sink.outbox.append(entries(1, 3));
  await sink.outbox.append(entries(4, 4));
  assert.is((await sink.journal.state()).pending, 4, 'in the journal');
  const during = await sink.outbox.state();
  assert.equal([during.pending, during.total_delivered, during.outbox_storage.write_blocked], [4, 0, false], 'pending, not blocked');
  await sink.full(false);
  await moved(sink);
  assert.equal(ids(await sink.drainRedis()), ['ev-1', 'ev-2', 'ev-3', 'ev-4'], 'only BullMQ delivers, oldest first');
  assert.equal(counts(await sink.outbox.state()), { pending: 0, total_delivered: 4, total_failed: 0, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes: 0 });
  assert.equal(sink.told.map((t) => t.split(':')[0]), ['lost', 'back']);
}));

test('a Redis that hangs (SIGSTOP): the append times out into the journal, Redis runs it once it wakes, and the move adds it once', withSink(async (sink) => {
  const redis = await server;
  redis.freeze();
  try {
    await sink.outbox.append(entries(1, 2));
    await sink.outbox.append(entries(3, 3));
  } finally {
    redis.thaw();
  }
  await moved(sink);
  await sink.outbox.append(entries(4, 4));
  assert.is((await sink.journal.state()).pending, 0, 'appends go to Redis again once the journal is moved');
  assert.equal(ids(await sink.drainRedis()), ['ev-1', 'ev-2', 'ev-3', 'ev-4'], 'each once, in order');
  assert.equal(counts(await sink.outbox.state()), { pending: 0, total_delivered: 4, total_failed: 0, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes: 0 });
}));

test('a move cut short between the add and the journal deletion (a crash) is done again at the next start, adding and counting nothing twice', async () => {
  const redisServer = await server;
  const first = await openJournaledSink(redisServer);
  let again: JournaledSink | null = null;
  try {
    // What an outage left in the journal, and the move's add of its first three, as a
    // node killed before it deleted them from the journal left it.
    await first.journal.append(journalEntries(groupsOf(entries(1, 5), 1)));
    const leased = await first.journal.lease(3);
    await first.primary.add(journalJobs(leased, true).jobs);
    await first.stop();
    again = await openJournaledSink(redisServer, { stateDir: first.stateDir, nodeId: first.nodeId });
    await moved(again);
    assert.equal(ids(await again.drainRedis()), ['ev-1', 'ev-2', 'ev-3', 'ev-4', 'ev-5'], 'each once');
    assert.equal(counts(await again.outbox.state()), { pending: 0, total_delivered: 5, total_failed: 0, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes: 0 });
  } finally {
    await again?.close();
    await first.close();
  }
});

test('a move cut short between the add and the journal deletion, started again after the added jobs were delivered and removed: nothing added, delivered or counted twice', async () => {
  const redisServer = await server;
  // The journal refuses to delete what the move added: as a node killed right after the add left it.
  const first = await openJournaledSink(redisServer, undefined, true);
  let again: JournaledSink | null = null;
  const keys = sinkKeys(first.nodeId, 'billing');
  const queue = sinkQueue(redisServer.url, keys);
  try {
    await first.full(true);
    await first.outbox.append(entries(1, 5));
    await first.full(false);
    await waitFor(async () => (await queue.getJobCounts('wait'))['wait'] === 5, 15_000, 'the move added the journal\'s jobs');
    assert.equal(ids(await first.drainRedis()), ['ev-1', 'ev-2', 'ev-3', 'ev-4', 'ev-5'], 'delivered once');
    // Removed as their expiry (KEEP_COMPLETED_S after delivery) removes them: BullMQ no longer knows the ids.
    assert.is((await queue.clean(0, 100, 'completed')).length, 5);
    // The move tries again each second meanwhile, as the next start does.
    await sleep(2500);
    await first.stop();
    again = await openJournaledSink(redisServer, { stateDir: first.stateDir, nodeId: first.nodeId });
    await moved(again);
    assert.equal(ids(await again.drainRedis()), [], 'nothing delivered twice');
    assert.equal(counts(await again.outbox.state()), { pending: 0, total_delivered: 5, total_failed: 0, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes: 0 });
    assert.is(await again.admin.exists(keys.moving), 0, 'the move\'s marks go once the journal is empty');
  } finally {
    await queue.close();
    await again?.close();
    await first.close();
  }
});

test('a gap recorded while Redis is out of memory is kept in the journal and moved into Redis once, with its range', withSink(async (sink) => {
  await sink.full(true);
  await sink.outbox.append(entries(1, 1));
  await sink.outbox.recordGap({ from_sequence: 7, to_sequence: 9, at_unix_ms: 1 }, false);
  const during = await sink.outbox.state();
  assert.equal([during.replay_gaps, during.gaps.map((g) => [g.from_sequence, g.to_sequence])], [1, [[7, 9]]], 'shown while in the journal');
  await sink.full(false);
  await moved(sink);
  await waitFor(async () => (await sink.primary.state()).replay_gaps === 1, 5000, 'the gap in Redis');
  const after = await sink.outbox.state();
  assert.equal([after.replay_gaps, after.gaps.map((g) => [g.from_sequence, g.to_sequence])], [1, [[7, 9]]], 'counted once');
}));

test.run();
