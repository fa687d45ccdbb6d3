import fs from 'node:fs';
import { canonicalOrder, type OrderSchema } from '../../actors/config/canonical-order.js';
import { configJsonSchema } from '../../actors/config/emit-json-schema.js';
import { loadConfigFile } from '../../actors/config/load-config.js';
import { writeFileAtomic } from '../../actors/files/atomic-json.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { printProblems } from './validate.js';

/** The config's text in canonical form: keys in the schema's order, 2-space indent, a final newline. */
function canonicalText(raw: unknown): string {
  const schema = configJsonSchema() as OrderSchema;
  return `${JSON.stringify(canonicalOrder(raw, schema, schema), null, 2)}\n`;
}

/**
 * `weir format [-w] <config_file>`: prints the config in canonical form, or with -w
 * writes it back (atomically, keeping the file's mode) when it differs. A config that
 * `validate` refuses is refused with the same messages, and nothing is written.
 * Secrets are not read: a `{ "env": NAME }` need not be set in this shell.
 */
export async function formatCommand(args: readonly string[], write: boolean): Promise<number> {
  const [file, ...rest] = args;
  if (!file || rest.length > 0) throw new UsageError('usage: weir format [-w] <config_file>');
  const result = loadConfigFile(file, { lenientSecrets: true });
  if (!result.ok) {
    printProblems(file, result.problems);
    return EXIT.failure;
  }
  const before = fs.readFileSync(file, 'utf8');
  const after = canonicalText(JSON.parse(before));
  if (!write) process.stdout.write(after);
  else if (after === before) process.stdout.write(`${file}: already in canonical form\n`);
  else {
    const { mode } = fs.statSync(file);
    await writeFileAtomic(file, after);
    fs.chmodSync(file, mode & 0o7777);
    process.stdout.write(`${file}: formatted\n`);
  }
  return EXIT.ok;
}
