import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { reap } from './child-reaper.js';

/** dist/cli/weir.js, reached from this compiled file (dist/spec/support). */
export const WEIR_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'cli', 'weir.js');

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a one-shot `weir` command (validate, build-info, a run that must fail) to its end; `env` adds to the environment. */
export function runWeir(args: readonly string[], timeoutMs = 30_000, env: Record<string, string> = {}): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WEIR_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    reap(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`weir ${args.join(' ')} did not end within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
