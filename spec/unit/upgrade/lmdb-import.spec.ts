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

test('an LMDB outbox of an earlier version is imported once, at the first sink open, with its counters, retries, dead letters and gaps', async () => {
  const dir = tempDir('weir-lmdb-import-');
  // Without `redis`: the embedded store, whose journals the import writes.
  const raw: Record<string, unknown> = { ...designExample(), node: { id: 'n1', state_dir: dir } };
  delete raw['redis'];
  const parsed = parseConfig(raw, { baseDir: dir, env: EXAMPLE_ENV });
  assert.ok(parsed.ok, JSON.stringify(parsed));
  const config = parsed.config;
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
    const stores = new LazyOutboxStores({ config: () => config, warning: () => {}, log: pino({ level: 'silent' }), runFirstSequence: 1, deadline: new StopDeadline() });
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
