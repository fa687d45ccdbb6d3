import type { Test } from 'uvu';

/**
 * `test.before` whose failure fails every test of the file. uvu returns from a `finally`
 * after its before hooks, so a hook that throws is swallowed: the file reports
 * `(0 / N)` in green with no error and the run still exits 0. Here the error is kept
 * and thrown again by each test's before-each hook, which uvu reports as a failure.
 */
export function loudBefore(test: Test, setUp: () => Promise<void> | void): void {
  let failure: unknown = null;
  test.before(async () => {
    try {
      await setUp();
    } catch (err) {
      failure = err;
    }
  });
  test.before.each(() => {
    if (failure) throw failure;
  });
}
