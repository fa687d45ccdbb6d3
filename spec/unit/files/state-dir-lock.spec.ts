import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { StateDirInUseError, StateDirLock } from '../../../actors/files/state-dir-lock.js';
import { tempDir } from '../../support/temp-dir.js';

function claimOf(dir: string): string {
  return fs.readFileSync(path.join(dir, 'weir.pid'), 'utf8').trim();
}

test('claims a free state_dir with its pid and gives it up on release', () => {
  const dir = tempDir();
  const lock = StateDirLock.acquire(dir);
  assert.equal([lock.unclaimed, claimOf(dir)], [null, String(process.pid)]);
  lock.release();
  assert.not.ok(fs.existsSync(path.join(dir, 'weir.pid')));
});

test('refuses a state_dir a running node process holds, naming its pid', () => {
  const dir = tempDir();
  const held = StateDirLock.acquire(dir);
  try {
    assert.throws(() => StateDirLock.acquire(dir), (err: unknown) => err instanceof StateDirInUseError && err.pid === process.pid);
  } finally {
    held.release();
  }
});

test('takes over a claim whose process is gone, or that is damaged', () => {
  const dir = tempDir();
  // A pid that existed and has ended.
  const gone = spawnSync(process.execPath, ['-e', '']).pid;
  for (const left of [`${gone}\n`, '', 'not a pid']) {
    fs.writeFileSync(path.join(dir, 'weir.pid'), left);
    const lock = StateDirLock.acquire(dir);
    assert.is(claimOf(dir), String(process.pid), JSON.stringify(left));
    lock.release();
  }
});

test('runs unclaimed, with the reason, where the state_dir cannot be written', () => {
  const dir = path.join(tempDir(), 'state');
  fs.writeFileSync(dir, 'a file where the state_dir should be');
  const lock = StateDirLock.acquire(dir);
  assert.match(lock.unclaimed ?? '', 'cannot be written');
  lock.release();
  assert.is(fs.readFileSync(dir, 'utf8'), 'a file where the state_dir should be');
});

test.run();
