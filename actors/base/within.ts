/**
 * The promise's value, or null once `ms` have passed or `giveUp` aborts, whichever
 * comes first; the promise itself goes on. An Infinity `ms` sets no timer. The timer
 * and the abort listener go once it settles, so a node that runs for months and waits
 * often holds none of them.
 */
export function within<T>(promise: Promise<T>, ms: number, giveUp?: AbortSignal): Promise<T | null> {
  return new Promise<T | null>((resolve, reject) => {
    const end = (): void => {
      clearTimeout(timer);
      giveUp?.removeEventListener('abort', late);
    };
    const late = (): void => {
      end();
      resolve(null);
    };
    if (giveUp?.aborted) return resolve(null);
    const timer = ms === Infinity ? undefined : setTimeout(late, ms);
    giveUp?.addEventListener('abort', late, { once: true });
    promise.then(
      (value) => {
        end();
        resolve(value);
      },
      (err: unknown) => {
        end();
        reject(err);
      },
    );
  });
}
