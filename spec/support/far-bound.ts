/**
 * A timeout handed to the code under test when the test expects it never to fire:
 * when the behaviour under test works, something else ends the wait long before it,
 * however slow and loaded the machine.
 */
export const FAR_MS = 60_000;

/**
 * How long a spec waits for something it expects before it fails. Far from any
 * normal duration, so a stalled CI machine cannot fail a working test; and below
 * FAR_MS, so a wait that only a FAR_MS timeout would end fails.
 */
export const WAIT_MS = FAR_MS / 2;

export class StillPendingError extends Error {
  readonly code = 'SPEC_STILL_PENDING';
}

/**
 * Settles as `promise` does, or rejects with StillPendingError while it is still
 * pending after WAIT_MS. A test that expects something to end on its own (not by a
 * FAR_MS timeout of the code under test, nor never) thus fails by which of the two
 * won, never by a measured duration. The timer is cleared once `promise` settles.
 */
export async function settlesBeforeFar<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const far = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StillPendingError(`${what} was still pending after ${WAIT_MS} ms`)), WAIT_MS);
  });
  try {
    return await Promise.race([promise, far]);
  } finally {
    clearTimeout(timer);
  }
}
