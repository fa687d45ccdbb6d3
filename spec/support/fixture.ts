import type { Test } from 'uvu';

/**
 * Starts a spec file's shared fixture (origin, node) at import time and returns a
 * getter its tests await. uvu imports every spec file before running the first test,
 * so the fixtures of all e2e files boot in parallel. A failed start fails each test
 * that awaits it; a `before` hook would not do: uvu swallows a throwing hook.
 * `stop` runs after the file's tests, whatever they did.
 */
export function fixture<T>(suite: Test, start: () => Promise<T>, stop: (value: T) => Promise<unknown>): () => Promise<T> {
  const ready = start();
  ready.catch(() => undefined);
  suite.after(async () => {
    const value = await ready.catch(() => undefined);
    if (value === undefined) return;
    try {
      await stop(value);
    } catch (err) {
      process.stderr.write(`fixture teardown failed: ${String(err)}\n`);
    }
  });
  return () => ready;
}
