import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { processTree, threadShare, treeCpuTicks, treeThreadTicks } from './proc-stats.js';

// A parent that runs a child burning 400 ms of CPU (however busy the machine), waits for it to exit, says so and idles.
const PARENT = `
const { spawn } = require('node:child_process');
const child = spawn(process.execPath, ['-e', 'while (process.cpuUsage().user < 400000);'], { stdio: 'ignore' });
process.stdout.write('child ' + child.pid + '\\n');
child.on('exit', () => process.stdout.write('reaped\\n'));
setInterval(() => {}, 1000);
`;

test('a child that exited and was reaped still counts in its parent tree CPU time', async () => {
  const parent = spawn(process.execPath, ['-e', PARENT], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    let out = '';
    parent.stdout.setEncoding('utf8');
    const said = (text: string): Promise<void> =>
      new Promise((resolve) => {
        const check = (): void => {
          if (out.includes(text)) resolve();
          else parent.stdout.once('data', (chunk: string) => ((out += chunk), check()));
        };
        check();
      });
    await said('child ');
    const childPid = Number(/child (\d+)/.exec(out)?.[1]);
    assert.ok(processTree(parent.pid as number).includes(childPid), 'the running child is part of the tree');
    await said('reaped');
    assert.not.ok(processTree(parent.pid as number).includes(childPid), 'the reaped child has left the tree');
    // 40 ticks burnt by the child (100 Hz), kept in the parent's cutime; the parent alone takes ~13.
    assert.ok(treeCpuTicks(parent.pid as number) >= 35, `tree CPU ${treeCpuTicks(parent.pid as number)} ticks`);
  } finally {
    parent.kill('SIGKILL');
    await once(parent, 'exit');
  }
});


// A process whose main thread idles while a worker thread burns 300 ms of CPU and then
// idles too (a thread that ended would be missing from the second reading).
const WORKER_BURNS = `
const { Worker } = require('node:worker_threads');
const burn = 'while (process.cpuUsage().user < 300000); require("node:worker_threads").parentPort.postMessage(1); setInterval(() => {}, 1000);';
new Worker(burn, { eval: true }).on('message', () => process.stdout.write('burnt\\n'));
setInterval(() => {}, 1000);
`;

test('threadShare names the thread beside the main one that took the CPU', async () => {
  const child = spawn(process.execPath, ['-e', WORKER_BURNS], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const before = treeThreadTicks(child.pid!);
    const started = Date.now();
    await once(child.stdout, 'data');
    const seconds = (Date.now() - started) / 1000;
    const share = threadShare(child.pid!, before, treeThreadTicks(child.pid!), seconds, 100);
    assert.ok(share.others > share.main, `other threads ${share.others} cores, main ${share.main}`);
    assert.ok(share.busiest !== null && share.busiest.cores > 0, 'a busiest thread is named');
    assert.not.equal(share.busiest?.name, '');
  } finally {
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
});

test.run();
