/** How many turns of the event loop pass while `work` runs. */
export async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let done = false;
  const count = (): void => {
    turns += 1;
    if (!done) setImmediate(count);
  };
  setImmediate(count);
  await work();
  done = true;
  return turns;
}
