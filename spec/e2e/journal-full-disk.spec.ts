import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { JournalOutboxStore } from '../../actors/outbox/journal-outbox-store.js';
import { OutboxUnavailable, OutboxWriteBlocked } from '../../actors/outbox/outbox-errors.js';
import { withTmpfs } from '../support/tmpfs.js';
import { counts, entries } from '../unit/outbox/outbox-contract.js';

// The embedded journal on a 1 MiB tmpfs that another writer fills to the last block:
// every write the disk refuses is an ordinary error, nothing of it is kept (no torn
// batch survives a reopen), and writes go on once the filler is gone.
const LIMITS = { max_bytes: 1 << 30, min_free_bytes: 0 };
const BODY = (i: number): string => `{"n":${i},"pad":"${'x'.repeat(2000)}"}`;

test('a journal on a disk another writer filled refuses writes as errors, keeps no torn batch, and resumes', () =>
  withTmpfs('1m', async (dir) => {
    const store = new JournalOutboxStore({ stateDir: dir, limits: LIMITS });
    try {
      await fullDiskRound(store, dir);
    } finally {
      await store.close();
    }
    const again = new JournalOutboxStore({ stateDir: dir, limits: LIMITS });
    try {
      const reopened = await again.open('billing');
      assert.equal(counts(await reopened.state()), AFTER, 'the same after a reopen');
      assert.equal((await reopened.lease(100)).map((e) => e.sequence), KEPT);
    } finally {
      await again.close();
    }
  }),
);

/** What the outbox holds after fullDiskRound: the five unacknowledged, the append after the disk had room, one gap. */
const KEPT = [6, 7, 8, 9, 10, 401];
const AFTER = { pending: 6, total_delivered: 5, total_failed: 0, replay_gaps: 1, dead_letters: 0, write_blocked: false, bytes: KEPT.reduce((n, i) => n + BODY(i).length, 0) };

async function fullDiskRound(store: JournalOutboxStore, dir: string): Promise<void> {
  const ob = await store.open('billing');
  await ob.append(entries(1, 10, BODY));
  const leased = await ob.lease(5);
  const filler = path.join(dir, 'filler');
  spawnSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=4k']);

  const refused = await ob.append(entries(11, 400, BODY)).catch((e: unknown) => e);
  assert.instance(refused, OutboxWriteBlocked);
  assert.is((refused as OutboxWriteBlocked).reason, 'store_full');
  assert.is((await ob.state()).outbox_storage.write_blocked_reason, 'store_full');
  // An ack on the full disk: refused as the store being unreachable (the connector tries
  // it again), unless its small line still fits in a page the segment already has.
  const ack = await ob.ack(leased.map((e) => e.id)).then(() => null, (e: unknown) => e);
  if (ack !== null) assert.instance(ack, OutboxUnavailable);
  await ob.recordGap({ from_sequence: 11, to_sequence: 400, at_unix_ms: 1 }, false);

  fs.rmSync(filler);
  if (ack !== null) await ob.ack(leased.map((e) => e.id));
  await ob.append(entries(401, 401, BODY));
  assert.equal(counts(await ob.state()), AFTER);
}

test.run();
