import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { JournalOutboxStore } from '../../../actors/outbox/journal-outbox-store.js';
import { counts, entries, ROOMY } from './outbox-contract.js';

const BIG = (i: number): string => `{"n":${i},"pad":"${'x'.repeat(20_000)}"}`;

function withDir(body: (dir: string) => Promise<void>) {
  return async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-journal-'));
    try {
      await body(dir);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
}

/** Bytes of the journal files of sink `billing`. */
function journalBytes(dir: string): number {
  const sink = path.join(dir, 'outbox', 'sinks', 'billing');
  return fs.readdirSync(sink).reduce((n, f) => n + fs.statSync(path.join(sink, f)).size, 0);
}

test(
  'a drained journal deletes its settled segments',
  withDir(async (dir) => {
    const store = new JournalOutboxStore({ stateDir: dir, limits: ROOMY });
    const ob = await store.open('billing');
    await ob.append(entries(1, 300, BIG));
    assert.ok(journalBytes(dir) > 6_000_000, `${journalBytes(dir)} bytes with 300 entries`);
    for (let leased = await ob.lease(50); leased.length > 0; leased = await ob.lease(50)) await ob.ack(leased.map((e) => e.id));
    await ob.append(entries(301, 301));
    assert.ok(journalBytes(dir) < 10_000, `${journalBytes(dir)} bytes once delivered: ${fs.readdirSync(path.join(dir, 'outbox', 'sinks', 'billing')).join(' ')}`);
    assert.equal(counts(await ob.state()), { pending: 1, total_delivered: 300, total_failed: 0, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes: 9 });
    await store.close();
  }),
);

test(
  'a dead letter in an old segment moves forward, and the segment goes',
  withDir(async (dir) => {
    const store = new JournalOutboxStore({ stateDir: dir, limits: ROOMY });
    const ob = await store.open('billing');
    await ob.append(entries(1, 300, BIG));
    await ob.lease(1);
    await ob.deadLetter('ev-1', 'HTTP 400');
    for (let leased = await ob.lease(50); leased.length > 0; leased = await ob.lease(50)) await ob.ack(leased.map((e) => e.id));
    await ob.append(entries(301, 301));
    await ob.append(entries(302, 302));
    // The emptied segment is unlinked behind the append: a few turns of I/O, no clock.
    for (let turn = 0; turn < 10_000 && journalBytes(dir) >= 100_000; turn++) await new Promise(setImmediate);
    assert.ok(journalBytes(dir) < 100_000, `${journalBytes(dir)} bytes with one dead letter`);
    await store.close();
    const again = new JournalOutboxStore({ stateDir: dir, limits: ROOMY });
    const reopened = await again.open('billing');
    const [dead] = await reopened.listDeadLetters(10);
    assert.equal([dead?.id, dead?.error, dead?.attempts, dead?.body], ['ev-1', 'HTTP 400', 1, BIG(1)]);
    assert.equal(counts(await reopened.state()), { pending: 2, total_delivered: 299, total_failed: 1, replay_gaps: 0, dead_letters: 1, write_blocked: false, bytes: 18 + BIG(1).length });
    await again.close();
  }),
);

test(
  'a torn last batch (a crash in the middle of a write) is left out at the reopen',
  withDir(async (dir) => {
    const store = new JournalOutboxStore({ stateDir: dir, limits: ROOMY });
    await (await store.open('billing')).append(entries(1, 2));
    await store.close();
    const sink = path.join(dir, 'outbox', 'sinks', 'billing');
    const last = fs.readdirSync(sink).sort().at(-1)!;
    fs.appendFileSync(path.join(sink, last), '{"k":"e","p":2,"i":"ev-3","s":3,"t":1,"r":null,"b":"{}"}\n{"k":"c","d":0,');
    const again = new JournalOutboxStore({ stateDir: dir, limits: ROOMY });
    const ob = await again.open('billing');
    assert.is((await ob.state()).pending, 2);
    await ob.append(entries(4, 4));
    assert.equal((await ob.lease(10)).map((e) => e.id), ['ev-1', 'ev-2', 'ev-4']);
    await again.close();
  }),
);

test(
  'bodies come back as appended after a reopen, newlines and tabs included',
  withDir(async (dir) => {
    const odd = ['{"a":"x\ty"}', 'line one\nline two', '{"k":"e"}\t\t', 'ünïcödé ✓'];
    const store = new JournalOutboxStore({ stateDir: dir, limits: ROOMY });
    await (await store.open('billing')).append(odd.map((body, i) => ({ id: `ev-${i}`, sequence: i + 1, body })));
    await store.close();
    const again = new JournalOutboxStore({ stateDir: dir, limits: ROOMY });
    const ob = await again.open('billing');
    assert.equal((await ob.lease(10)).map((e) => e.body), odd);
    await again.close();
  }),
);

test.run();
