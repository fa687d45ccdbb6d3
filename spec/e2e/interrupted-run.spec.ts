import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { reapGroup } from '../support/child-reaper.js';
import { signalGroup } from '../support/process-group.js';

const PROGRAM = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'support', 'daemons-until-signal.js');

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

test('Ctrl+C on a run stops the daemons it started, in their own process groups too', async () => {
  // Detached: a process group of its own, as a terminal's foreground job has.
  const run = spawn(process.execPath, [PROGRAM], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
  reapGroup(run);
  let out = '';
  run.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => run.once('exit', (_code, signal) => resolve(signal)));
  for (let i = 0; i < 300 && !out.includes('\n'); i++) await sleep(50);
  const daemons = JSON.parse(out) as { name: string; pid: number }[];
  try {
    assert.equal(daemons.map((d) => d.name), ['microsocks', 'danted']);
    assert.ok(daemons.every((d) => groupAlive(d.pid)), 'the daemons run before the interrupt');
    // What Ctrl+C does: SIGINT to every process of the foreground job's group.
    signalGroup(run.pid!, 'SIGINT');
    assert.is(await exited, 'SIGINT', 'the run ends as an interrupted process does');
    for (let i = 0; i < 100 && daemons.some((d) => groupAlive(d.pid)); i++) await sleep(50);
    assert.equal(daemons.filter((d) => groupAlive(d.pid)).map((d) => d.name), []);
  } finally {
    for (const d of daemons) signalGroup(d.pid, 'SIGKILL');
  }
});

test.run();
