import fs from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { StopDeadline } from '../../../actors/base/stop-deadline.js';
import { parseConfig } from '../../../actors/config/load-config.js';
import { LazyOutboxStores } from '../../../actors/engine/lazy-outbox-stores.js';
import type { StoredEntry } from '../../../actors/upgrade/lmdb-outbox.js';
import { writeLmdbOutbox } from '../../support/lmdb-outbox-fixture.js';
import { tempDir } from '../../support/temp-dir.js';
import { designExample, EXAMPLE_ENV } from '../config/fixtures.js';
import { counts } from '../outbox/outbox-contract.js';

/** A config without `redis` (the embedded store, whose journals the import writes) on state dir `dir`. */
function embeddedConfig(dir: string) {
  const raw: Record<string, unknown> = { ...designExample(), node: { id: 'n1', state_dir: dir } };
  delete raw['redis'];
  const parsed = parseConfig(raw, { baseDir: dir, env: EXAMPLE_ENV });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed));
  return parsed.config;
}

const storesOf = (dir: string): LazyOutboxStores =>
  new LazyOutboxStores({ config: () => embeddedConfig(dir), warning: () => {}, log: pino({ level: 'silent' }), runFirstSequence: 1, deadline: new StopDeadline() });

test('an LMDB import that failed is tried again at the next sink open', async () => {
  const dir = tempDir('weir-lmdb-retry-');
  const now = Date.now();
  await writeLmdbOutbox(dir, {
    billing: {
      pending: [[4, { id: 'ev-4', sequence: 4, body: '{"n":4}', enqueued_at_unix_ms: now, replayed_at_unix_ms: null }]],
      retries: [],
      dead: [],
      counters: { pending: 1, dead_letters: 0, bytes: 7, total_delivered: 0, total_failed: 0, replay_gaps: 0, last_error: null },
      gaps: [],
    },
  });
  // A file where the sinks' journal directory goes: the import cannot write.
  const sinks = path.join(dir, 'outbox', 'sinks');
  fs.writeFileSync(sinks, '');
  const stores = storesOf(dir);
  try {
    assert.ok(await stores.open('billing').then(() => false, () => true), 'the first open fails with the import');
    fs.rmSync(sinks);
    const opened = await stores.open('billing');
    if (opened.store !== 'embedded') throw new Error(`a ${opened.store} outbox without redis`);
    assert.equal((await opened.outbox.lease(10)).map((e) => e.id), ['ev-4']);
  } finally {
    await stores.close();
  }
});

test('an LMDB outbox of an earlier version is imported once, at the first sink open, with its counters, retries, dead letters and gaps', async () => {
  const dir = tempDir('weir-lmdb-import-');
  const stored = (n: number, enq: number): StoredEntry => ({ id: `ev-${n}`, sequence: n, body: `{"n":${n}}`, enqueued_at_unix_ms: enq, replayed_at_unix_ms: null });
  const now = Date.now();
  // ev-1 was delivered, ev-2 failed once and is due in a minute, ev-3 is a dead letter, ev-4 waits.
  await writeLmdbOutbox(dir, {
    billing: {
      pending: [[2, stored(2, now)], [4, stored(4, now)]],
      retries: [[2, { attempts: 1, not_before_unix_ms: now + 60_000 }]],
      dead: [[3, { ...stored(3, now), attempts: 1, error: 'HTTP 410', dead_at_unix_ms: now }]],
      counters: { pending: 2, dead_letters: 1, bytes: 21, total_delivered: 1, total_failed: 2, replay_gaps: 1, last_error: { message: 'HTTP 410', at_unix_ms: now } },
      gaps: [{ from_sequence: 7, to_sequence: 9, at_unix_ms: 5 }],
    },
  });

  for (let round = 0; round < 2; round++) {
    const stores = storesOf(dir);
    const opened = await stores.open('billing');
    if (opened.store !== 'embedded') throw new Error(`a ${opened.store} outbox without redis`);
    const ob = opened.outbox;
    const s = await ob.state();
    assert.equal(counts(s), { pending: 2, total_delivered: 1, total_failed: 2, replay_gaps: 1, dead_letters: 1, write_blocked: false, bytes: 21 });
    assert.equal([s.last_error?.message, s.gaps], ['HTTP 410', [{ from_sequence: 7, to_sequence: 9, at_unix_ms: 5 }]]);
    assert.equal((await ob.listDeadLetters(10)).map((d) => [d.id, d.error, d.body]), [['ev-3', 'HTTP 410', '{"n":3}']]);
    assert.equal((await ob.lease(10)).map((e) => e.id), ['ev-4'], 'ev-2 keeps its due time');
    await stores.close();
  }
  const left = fs.readdirSync(path.join(dir, 'outbox'));
  assert.not.ok(left.includes('data.mdb'), 'the LMDB files are renamed aside');
  assert.ok(left.some((f) => f.startsWith('data.mdb.imported-')), left.join(' '));
});

test.run();
