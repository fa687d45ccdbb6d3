import { formatProblem, type ConfigProblem } from '../../actors/config/problems.js';
import { loadConfigFile } from '../../actors/config/load-config.js';
import { EXIT, UsageError } from '../exit-codes.js';

/** Prints every problem of an invalid config, one per line, the same for `validate` and `run`. */
export function printProblems(file: string, problems: readonly ConfigProblem[]): void {
  process.stderr.write(`${file}: invalid configuration (${problems.length} problem${problems.length === 1 ? '' : 's'})\n`);
  for (const p of problems) process.stderr.write(`  ${formatProblem(p)}\n`);
}

export function validateCommand(args: readonly string[], json: boolean): number {
  const file = args[0];
  if (!file) throw new UsageError('usage: weir validate <config_file>');
  const result = loadConfigFile(file);
  if (json) {
    process.stdout.write(`${JSON.stringify(result.ok ? { valid: true, problems: [] } : { valid: false, problems: result.problems })}\n`);
  } else if (result.ok) {
    process.stdout.write(`${file}: valid\n`);
  } else {
    printProblems(file, result.problems);
  }
  return result.ok ? EXIT.ok : EXIT.failure;
}
