import { setTimeout as sleep } from 'node:timers/promises';

export class WaitTimeoutError extends Error {
  readonly code = 'E2E_WAIT_TIMEOUT';
}

/**
 * Polls `probe` until it returns something other than undefined/false/null and
 * returns that value; throws after `timeoutMs`, naming `what` was awaited.
 */
export async function waitFor<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs: number,
  what = 'condition',
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() >= deadline) throw new WaitTimeoutError(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}
