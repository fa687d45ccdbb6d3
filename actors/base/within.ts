/** The promise's value, or null once `ms` have passed; the promise itself goes on. */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(resolve, ms, null)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
