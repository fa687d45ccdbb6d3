/**
 * A FIFO limit on how many nodes boot at once. Every e2e file starts its node at
 * import; booting them all together on a small, busy machine starves each of them
 * past its ready timeout. In FIFO order the files that run first are ready first.
 */
const MAX_BOOTING = 3;
let booting = 0;
const waiting: (() => void)[] = [];

/** Resolves when a boot slot is free; call the returned function to give it back. */
export async function bootSlot(): Promise<() => void> {
  if (booting >= MAX_BOOTING) await new Promise<void>((resolve) => waiting.push(resolve));
  else booting++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const next = waiting.shift();
    if (next) next();
    else booting--;
  };
}
