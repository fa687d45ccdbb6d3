import { spawn } from 'node:child_process';
import { reap } from './child-reaper.js';

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  /** Over the spec's own environment. */
  env?: Record<string, string>;
  /** Bound on the command's run: it is killed after it, and the run rejects. */
  timeoutMs: number;
}

/** Runs a program (npm, a shell line, an installed bin) to its end, with its output. */
export function runCommand(command: string, args: readonly string[], opts: RunOptions): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    reap(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not end within ${opts.timeoutMs} ms\n${stderr}`));
    }, opts.timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
