/**
 * How lmdb-js reports a commit that failed (a full disk: ENOSPC): every write of it
 * rejects with "Commit failed", and the cause comes in a second promise,
 * `err.commitError`, rejected as well. Each of them needs a handler: one left without
 * is an unhandled rejection, which ends the process.
 */

/** The cause of a failed commit (the lmdb-js error itself when it names none); handles `commitError`. */
export async function commitCause(err: unknown): Promise<unknown> {
  const second = (err as { commitError?: unknown } | null)?.commitError;
  if (!(second instanceof Promise)) return err;
  return second.then(
    () => err,
    (cause: unknown) => cause,
  );
}

/** A write whose failure its batch reports: handled here so that it is reported once, there. */
export function batched(write: Promise<unknown>): void {
  write.catch(commitCause);
}

/** Rejects with the cause of a failed commit instead of lmdb-js's "Commit failed". */
export async function committed<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    throw await commitCause(err);
  }
}
