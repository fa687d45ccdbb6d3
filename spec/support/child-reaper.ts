import type { ChildProcess } from 'node:child_process';

const live = new Set<ChildProcess>();
let hooked = false;

function killAll(): void {
  for (const child of live) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  live.clear();
}

/**
 * Remembers a child so that it is SIGKILLed when the test process exits, whatever
 * failed before: a node left running must never outlive the suite.
 */
export function reap(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (hooked) return;
  hooked = true;
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killAll();
      process.kill(process.pid, signal);
    });
  }
}
