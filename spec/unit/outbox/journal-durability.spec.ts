import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { JournalOutboxStore } from '../../../actors/outbox/journal-outbox-store.js';
import { OutboxWriteBlocked } from '../../../actors/outbox/outbox-errors.js';
import { readOutboxState } from '../../../cli/sink-outbox-state.js';
import { FAR_MS } from '../../support/far-bound.js';
import { counts, entries, ROOMY } from './outbox-contract.js';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'journal-append-child.js');

function stateDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'weir-outbox-'));
}

/** Runs the appending child until it reported `atLeast` commits, then SIGKILLs it; resolves with the last reported sequence. */
function appendThenKill9(dir: string, atLeast: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, dir], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let last = 0;
    const guard = setTimeout(() => child.kill('SIGKILL'), FAR_MS);
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const lines = out.split('\n');
      out = lines.pop()!;
      for (const line of lines) last = Number(line.split(' ')[1]);
      if (last >= atLeast && child.signalCode === null) child.kill('SIGKILL');
    });
    child.once('exit', (code, signal) => {
      clearTimeout(guard);
      if (signal === 'SIGKILL' && last >= atLeast) resolve(last);
      else reject(new Error(`append child ended with ${code ?? signal} after ${last} commits: ${err}`));
    });
  });
}

test('every append a killed (-9) process saw committed is there after a reopen', async () => {
  const dir = stateDir();
  try {
    const last = await appendThenKill9(dir, 200);
    const store = new JournalOutboxStore({ stateDir: dir, limits: ROOMY });
    const outbox = await store.open('billing');
    const leased = await outbox.lease(last + 1000);
    // The child may have committed a few more after its last line was read.
    assert.ok(leased.length >= last, `${leased.length} entries for ${last} reported commits`);
    assert.equal(
      leased.map((e) => e.sequence),
      Array.from({ length: leased.length }, (_, i) => i + 1),
      'in order, none missing',
    );
    assert.is((await outbox.state()).pending, leased.length);
    await store.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a process that exits while appends are in flight ends at once', async () => {
  const dir = stateDir();
  try {
    const child = spawn(process.execPath, [CHILD, dir], { stdio: ['pipe', 'pipe', 'ignore'] });
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Its stdin closing makes it call process.exit(0) between two appends' commits.
    child.stdout.once('data', () => child.stdin.end());
    // A deadlocked exit hangs forever: the guard's kill then fails the test by its exit code.
    const guard = setTimeout(() => child.kill('SIGKILL'), FAR_MS);
    const code = await exit;
    clearTimeout(guard);
    assert.is(code, 0, 'exited by itself, not killed by the guard');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('readOutboxState reads a sink offline, the same as the live state', async () => {
  const dir = stateDir();
  try {
    const store = new JournalOutboxStore({ stateDir: dir, limits: ROOMY });
    const outbox = await store.open('billing');
    await outbox.append(entries(1, 3));
    await outbox.lease(1);
    await outbox.ack(['ev-1']);
    await outbox.recordGap({ from_sequence: 7, to_sequence: 8, at_unix_ms: 5 }, false);
    const live = await outbox.state();
    await store.close();
    const offline = (await readOutboxState(dir, 'billing'))!;
    assert.equal(counts(offline), counts(live));
    assert.equal(counts(offline), { pending: 2, total_delivered: 1, total_failed: 0, replay_gaps: 1, dead_letters: 0, write_blocked: false, bytes: 14 });
    assert.equal(offline.gaps, live.gaps);
    assert.is(await readOutboxState(dir, 'other'), null, 'a sink without an outbox');
    assert.is(await readOutboxState(path.join(dir, 'nothing-here'), 'billing'), null, 'a state dir without an outbox');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('min_free_bytes blocks writes until new limits leave room, and the offline state shows the block', async () => {
  const dir = stateDir();
  try {
    const store = new JournalOutboxStore({ stateDir: dir, limits: { max_bytes: 1 << 30, min_free_bytes: Number.MAX_SAFE_INTEGER } });
    const outbox = await store.open('billing');
    const err = await outbox.append(entries(1, 1)).catch((e: unknown) => e);
    assert.instance(err, OutboxWriteBlocked);
    assert.is((err as OutboxWriteBlocked).reason, 'min_free_bytes');
    assert.is((await outbox.state()).outbox_storage.write_blocked_reason, 'min_free_bytes');
    await store.close();
    assert.is((await readOutboxState(dir, 'billing'))!.outbox_storage.write_blocked_reason, 'min_free_bytes');

    const again = new JournalOutboxStore({ stateDir: dir, limits: { max_bytes: 1 << 30, min_free_bytes: Number.MAX_SAFE_INTEGER } });
    const reopened = await again.open('billing');
    assert.is((await reopened.state()).outbox_storage.write_blocked, true, 'the last known block stands after a restart');
    await again.close();
    const roomy = new JournalOutboxStore({ stateDir: dir, limits: ROOMY });
    const third = await roomy.open('billing');
    await third.append(entries(1, 1));
    assert.is((await third.state()).outbox_storage.write_blocked, false, 'until an append fits');
    await roomy.close();
    assert.is((await readOutboxState(dir, 'billing'))!.outbox_storage.write_blocked, false);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
