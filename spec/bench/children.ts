import { spawn, type ChildProcess } from 'node:child_process';
import { waitListening } from '../support/listening.js';
import { signalGroup, stopGroup } from '../support/process-group.js';

/** A child started by the bench in its own process group, so helpers it forks (Dante does) die with it. */
export interface Started {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  /** The last 2,000 characters the child wrote to stderr, for diagnostics. */
  stderrTail(): string;
}

export class BenchChildError extends Error {
  readonly code = 'BENCH_CHILD';
}

const live = new Set<Started>();

/**
 * 5,000 tunnels need over 10,000 descriptors in the proxy. Ask for 65,536 and settle for the
 * hard limit where a container forbids raising it.
 */
const RAISE_FD_LIMIT = 'ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"';

/** Tracks a child started with `detached: true`, so that `stopChild` and `killAllNow` reach its group. */
export function track(name: string, child: ChildProcess): Started {
  if (child.pid === undefined) throw new BenchChildError(`${name}: could not start`);
  let tail = '';
  child.stderr?.on('data', (d: Buffer) => {
    tail = (tail + d.toString()).slice(-2000);
  });
  const started: Started = { name, child, pid: child.pid, stderrTail: () => tail };
  live.add(started);
  child.once('exit', () => live.delete(started));
  return started;
}

/** Runs argv under bash with a raised descriptor limit, in a new process group. */
export function spawnGroup(name: string, argv: readonly string[]): Started {
  const child = spawn('bash', ['-c', `${RAISE_FD_LIMIT}; exec "$@"`, name, ...argv], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return track(name, child);
}

/** SIGTERM to the group, SIGKILL after 2 s; the group is killed again after the leader exits to reap forks. */
export async function stopChild(s: Started): Promise<void> {
  await stopGroup(s.child);
  live.delete(s);
}

/** Synchronous last resort for exit and signal handlers. */
export function killAllNow(): void {
  for (const s of live) signalGroup(s.pid, 'SIGKILL');
  live.clear();
}

/** Waits until 127.0.0.1:port accepts a connection; fails if the child exits or time runs out. */
export async function waitForPort(s: Started, port: number, timeoutMs: number): Promise<void> {
  const state = await waitListening(s.child, port, timeoutMs);
  if (state === 'exited') throw new BenchChildError(`${s.name} exited before listening: ${s.stderrTail().trim()}`);
  if (state === 'timed out') throw new BenchChildError(`${s.name} did not listen on 127.0.0.1:${port} within ${timeoutMs} ms`);
}
