import fc from 'fast-check';

/**
 * Cases per property: `specRuns` in the spec run, WEIR_FUZZ_RUNS when set (`make fuzz`
 * sets 100000). WEIR_FUZZ_SEED and WEIR_FUZZ_PATH replay a failure a report named.
 */
function parameters(specRuns: number): fc.Parameters<unknown> {
  const runs = Number(process.env['WEIR_FUZZ_RUNS'] ?? specRuns);
  const seed = process.env['WEIR_FUZZ_SEED'];
  const path = process.env['WEIR_FUZZ_PATH'];
  return {
    numRuns: Number.isInteger(runs) && runs > 0 ? runs : specRuns,
    ...(seed === undefined ? {} : { seed: Number(seed) }),
    ...(path === undefined ? {} : { path }),
  };
}

/**
 * Checks a property; a failure throws fast-check's report: the seed and path to replay
 * it, and the counterexample shrunk to its smallest form.
 */
export async function checkProperty<T>(property: fc.IAsyncPropertyWithHooks<T> | fc.IPropertyWithHooks<T>, specRuns: number): Promise<void> {
  await fc.assert(property as fc.IAsyncPropertyWithHooks<T>, parameters(specRuns) as fc.Parameters<T>);
}
