import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand, type CommandResult } from './run-command.js';

/** The checkout's bin/weir, the command users run, reached from this compiled file (dist/spec/support). */
export const WEIR_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'bin', 'weir');

export type { CommandResult } from './run-command.js';

/** Runs a one-shot `weir` command (validate, build-info, a run that must fail) to its end; `env` adds to the environment. */
export function runWeir(args: readonly string[], timeoutMs = 30_000, env: Record<string, string> = {}): Promise<CommandResult> {
  return runCommand(WEIR_BIN, args, { env, timeoutMs });
}
