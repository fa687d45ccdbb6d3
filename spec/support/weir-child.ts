import { spawn, type ChildProcess } from 'node:child_process';
import type net from 'node:net';
import { reap } from './child-reaper.js';
import { hasExited } from './listening.js';
import { WEIR_BIN } from './weir-bin.js';

/** A `weir` command running as a child process, its output collected. */
export interface WeirChild {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** The exit code, once the output pipes are drained (so stdout() is complete then). */
  readonly exit: Promise<number | null>;
  /** Sends `signal` unless it has exited and resolves with the exit code (SIGKILL after 10 s: then null). */
  stop(signal: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `weir <args>` (under a descriptor limit of `fdLimit` when given), killed when
 * the test process exits. Unreferenced, so a child a
 * failed test left running cannot hold the runner open; the waits on it are bounded by
 * timers, which keep the loop alive meanwhile.
 */
export function spawnWeir(args: readonly string[], env: Record<string, string> = {}, fdLimit?: number): WeirChild {
  // With fdLimit, a shell lowers the descriptor limit and execs weir, which keeps its pid.
  const [command, argv] = fdLimit === undefined ? [WEIR_BIN, args] : ['sh', ['-c', `ulimit -n ${fdLimit} && exec "$0" "$@"`, WEIR_BIN, ...args]];
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  reap(child);
  child.unref();
  for (const stream of [child.stdout, child.stderr]) (stream as net.Socket).unref();
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const stop = async (signal: NodeJS.Signals): Promise<number | null> => {
    if (hasExited(child)) return exit;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const code = await exit;
    clearTimeout(timer);
    return code;
  };
  return { child, stdout: () => out, stderr: () => err, exit, stop };
}
