import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { hasExited } from './listening.js';

/** Signals the process group led by `pid` (a child spawned with `detached: true`). */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is gone already.
  }
}

/**
 * Stops the group a detached child leads (helpers it forked, as Dante does, die with
 * it): SIGTERM, then SIGKILL to the group once the leader exited or after `graceMs`,
 * which also reaps forks the leader left. Resolves once the leader exited, or
 * `graceMs` after the SIGKILL at the latest.
 */
export async function stopGroup(child: ChildProcess, graceMs = 2000): Promise<void> {
  const exited = new Promise<void>((resolve) => {
    if (hasExited(child)) resolve();
    else child.once('exit', () => resolve());
  });
  const wait = (): Promise<boolean> => Promise.race([exited.then(() => true), sleep(graceMs).then(() => false)]);
  signalGroup(child.pid!, 'SIGTERM');
  const ended = await wait();
  signalGroup(child.pid!, 'SIGKILL');
  if (!ended) await wait();
}
