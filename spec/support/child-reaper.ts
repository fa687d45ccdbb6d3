import type { ChildProcess } from 'node:child_process';
import { signalGroup } from './process-group.js';

/** Children killed by pid, and the process groups of detached ones (a daemon and its forks). */
const live = new Set<ChildProcess>();
const groups = new Set<number>();
let hooked = false;

function killAll(): void {
  for (const child of live) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  live.clear();
  for (const pid of groups) signalGroup(pid, 'SIGKILL');
  groups.clear();
}

/**
 * Kills what is left when the test process ends, on a normal exit and on SIGINT,
 * SIGTERM or SIGHUP. A signal's default action ends the process without 'exit'
 * handlers, so each signal kills first, then is raised again for its usual exit status.
 * A detached child is in a group of its own, which a terminal's Ctrl+C does not reach.
 */
function hook(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      killAll();
      process.kill(process.pid, signal);
    });
  }
}

/**
 * Remembers a child so that it is SIGKILLed when the test process exits, whatever
 * failed before: a node left running must never outlive the suite.
 */
export function reap(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  hook();
}

/**
 * As reap, for a child spawned with `detached: true`: its whole process group is
 * SIGKILLed, so helpers it forked (Dante's) die with it. When the leader exits, the
 * group is killed at once and forgotten, so a reused pid is never signalled.
 */
export function reapGroup(child: ChildProcess): void {
  const pid = child.pid!;
  groups.add(pid);
  child.once('exit', () => {
    signalGroup(pid, 'SIGKILL');
    groups.delete(pid);
  });
  hook();
}
