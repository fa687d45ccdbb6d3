import { spawn } from 'node:child_process';
import { reap } from './child-reaper.js';

export interface CurlResult {
  /** curl's exit code: 0 on success, e.g. 7, 52, 56, 97 on proxy and transfer failures. */
  code: number | null;
  body: Buffer;
  stderr: string;
}

/** curl's exit code when `--max-time` ran out. */
export const CURL_TIMED_OUT = 28;

/** Proxy variables of the environment would override what a spec asks for. */
const PROXY_ENV = /^(all|http|https|no|ftp|socks)_proxy$/i;

/**
 * Runs the real `curl` with `args`, silently but showing errors, bounded by
 * `--max-time` (and a kill a second later should curl itself hang). Aborting
 * `hangUp` kills curl, as a client that goes away would: then `code` is null.
 */
export function curl(args: readonly string[], timeoutMs = 10_000, hangUp?: AbortSignal): Promise<CurlResult> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !PROXY_ENV.test(k)));
  return new Promise((resolve, reject) => {
    const child = spawn('curl', ['--silent', '--show-error', '--max-time', String(timeoutMs / 1000), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    });
    reap(child);
    const body: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => body.push(d));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const guard = setTimeout(() => child.kill('SIGKILL'), timeoutMs + 1000);
    hangUp?.addEventListener('abort', () => child.kill(), { once: true });
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(guard);
      resolve({ code, body: Buffer.concat(body), stderr });
    });
  });
}
