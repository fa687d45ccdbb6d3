import { setTimeout as sleep } from 'node:timers/promises';
import fs from 'node:fs';
import * as assert from 'uvu/assert';
import type { WeirConfig } from '../../../actors/config/schema.js';
import { Secret } from '../../../actors/config/secret.js';
import { StopDeadline } from '../../../actors/base/stop-deadline.js';
import { LmdbOutboxStore } from '../../../actors/outbox/lmdb-outbox-store.js';
import { OutboxUnavailable } from '../../../actors/outbox/outbox-errors.js';
import { readSinkOutboxState } from '../../../actors/outbox/read-sink-state.js';
import { redisSuite } from '../../support/redis-server.js';
import { tempDir } from '../../support/temp-dir.js';
import { waitFor } from '../../support/wait-for.js';
import { entries, ROOMY } from './outbox-contract.js';
import { ids, withSpillSink, type SpillSink, type SpillSinkOptions } from './spill-sink.js';

// The Redis outbox and the embedded one beside it, on a real redis-server that the
// tests freeze (SIGSTOP: a hung Redis) or fill (maxmemory 1 byte).
const { test, server } = redisSuite('Redis outbox with the embedded store beside it');
const withSink = (body: (sink: SpillSink) => Promise<void>, opts?: SpillSinkOptions) =>
  withSpillSink(server, { probeMs: 200, ...opts })(body);

test('a hung Redis costs one append its timeout: the next ones go to the embedded store without asking it, until it answers again', withSink(async (sink) => {
  (await server).freeze();
  for (let i = 0; i < 6; i++) await sink.outbox.append(entries(i + 1, i + 1));
  assert.is(sink.redisAppends(), 1, 'only the first append waited for Redis');
  assert.equal(ids(await sink.outbox.lease(10)), ['ev-1', 'ev-2', 'ev-3', 'ev-4', 'ev-5', 'ev-6']);

  (await server).thaw();
  // Each append spills and, once per probe interval, asks Redis off its path.
  await waitFor(
    async () => {
      await sink.outbox.append(entries(100 + sink.redisAppends(), 100 + sink.redisAppends()));
      return sink.redisAppends() > 1;
    },
    10_000,
    'appends going to Redis again',
  );
}));

/** The stop deadline of the next test's sink, which the test begins. */
const deadline = new StopDeadline();

test('at the stop deadline, an append and a gap record a hung Redis has not taken go to the embedded store, not after its 3 s reply timeout', withSink(async (sink) => {
  await sink.outbox.append(entries(1, 1));
  (await server).freeze();
  // Under way when the stop begins, as the last flow.completed of a shutdown.
  const appending = sink.outbox.append(entries(2, 3));
  deadline.begin(100);
  const kept = await Promise.race([appending.then(() => 'kept'), sleep(2000, 'waited for Redis')]);
  assert.is(kept, 'kept');
  await sink.outbox.recordGap({ from_sequence: 4, to_sequence: 4, at_unix_ms: Date.now() }, false);
  assert.equal(ids(await sink.outbox.lease(10)), ['ev-2', 'ev-3'], 'the entries Redis did not take, in the embedded store');
  assert.equal((await sink.spill.state()).gaps.map((g) => g.from_sequence), [4], 'the gap in the embedded store');
  assert.is(sink.redisAppends(), 2, 'after the deadline nothing more is asked of Redis');
}, { deadline }));

test('a continuing gap that Redis refuses starts a new gap in the embedded store, never extending an older one there', withSink(async (sink) => {
  await sink.outbox.recordGap({ from_sequence: 1, to_sequence: 4, at_unix_ms: Date.now() }, false);
  await sink.admin.config('SET', 'maxmemory', '1');
  await sink.outbox.recordGap({ from_sequence: 5, to_sequence: 8, at_unix_ms: Date.now() + 1 }, true);
  await sink.admin.config('SET', 'maxmemory', '0');
  // The range went on in the embedded store; one continuing it now, with Redis back, goes to
  // Redis, whose last gap (1-4) it does not continue.
  await sink.outbox.recordGap({ from_sequence: 9, to_sequence: 9, at_unix_ms: Date.now() + 2 }, true);
  const s = await sink.outbox.state();
  const ranges = s.gaps.map((g) => [g.from_sequence, g.to_sequence]);
  assert.equal(ranges, [[70, 77], [1, 4], [5, 8], [9, 9]]);
  assert.is(s.replay_gaps, 4);
}, {
  // A previous run's gap in the embedded store, older than everything above.
  embeddedFirst: async (store) => {
    await (await store.open('billing')).recordGap({ from_sequence: 70, to_sequence: 77, at_unix_ms: Date.now() - 86_400_000 }, false);
    await store.close();
  },
}));

test('a write block the embedded store was left with is not shown while Redis takes the writes', withSink(async (sink) => {
  await sink.outbox.append(entries(1, 3));
  assert.equal(ids(await sink.drainRedis()), ['ev-1', 'ev-2', 'ev-3']);
  const s = await sink.outbox.state();
  assert.equal([s.outbox_storage.write_blocked, s.outbox_storage.write_blocked_reason, s.total_delivered], [false, null, 3]);
}, {
  // A previous run, during a Redis outage on a full disk: the embedded store refused an append.
  embeddedFirst: async (store) => {
    store.setLimits({ max_bytes: ROOMY.max_bytes, min_free_bytes: Number.MAX_SAFE_INTEGER });
    const refused = await (await store.open('billing')).append(entries(1, 1)).then(() => null, (err: unknown) => err);
    assert.ok(refused, 'the embedded store refused the append');
    await store.close();
  },
}));

test('an append Redis ran though the node saw it fail is counted once: the embedded copy claims the count of the Redis copy', withSink(async (sink) => {
  // Redis runs the append, and the node sees it fail (its answer came too late).
  const append = sink.primary.append.bind(sink.primary);
  sink.primary.append = async (e) => {
    await append(e);
    throw new OutboxUnavailable('Command timed out');
  };
  await sink.outbox.append(entries(1, 2));
  sink.primary.append = append;
  assert.equal(ids(await sink.outbox.lease(10)), ['ev-1', 'ev-2'], 'the embedded copies');
  await sink.outbox.ack(['ev-1', 'ev-2']);
  // The Redis copies are delivered again under the same ids, and not counted.
  assert.equal(ids(await sink.drainRedis()), ['ev-1', 'ev-2'], 'the Redis copies');
  // Until a probe finds Redis answering, appends go to the embedded store.
  await sink.outbox.append(entries(3, 3));
  await sink.outbox.ack(ids(await sink.outbox.lease(10)));
  const s = await sink.outbox.state();
  assert.equal([s.pending, s.total_delivered], [0, 3], 'three distinct events');
}));

test('the offline state of a Redis sink shows what its embedded store holds: gaps, bytes, pending', async () => {
  const { url } = await server;
  const stateDir = tempDir('weir-spill-offline-');
  const embedded = new LmdbOutboxStore({ stateDir, limits: ROOMY });
  const spill = await embedded.open('billing');
  await spill.recordGap({ from_sequence: 3, to_sequence: 5, at_unix_ms: 1000 }, false);
  await spill.append(entries(6, 6));
  await embedded.close();
  try {
    // Only the sections the reader uses.
    const config = { node: { id: 'spill-offline', state_dir: stateDir }, redis: { url: new Secret(url) } } as unknown as WeirConfig;
    const s = await readSinkOutboxState(config, 'billing');
    assert.equal(s?.gaps.map((g) => [g.from_sequence, g.to_sequence]), [[3, 5]]);
    assert.equal([s?.replay_gaps, s?.pending, s?.outbox_storage.store], [1, 1, 'redis']);
    assert.is(s?.outbox_storage.bytes, Buffer.byteLength(entries(6, 6)[0]!.body), 'the embedded bytes count');
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
});

test.run();
