#!/usr/bin/env node
import meow from 'meow';
import { buildInfoCommand } from './commands/build-info.js';
import { runCommand } from './commands/run.js';
import { validateCommand } from './commands/validate.js';
import { EXIT, UsageError } from './exit-codes.js';

const HELP = `
  Usage
    $ weir run [-c FILE]              run the node in the foreground (built-in default without -c)
    $ weir validate <config_file>     check a configuration file
    $ weir build-info [--json]        git_hash, features, build_profile, binary_sha256

  Options
    -c, --config FILE   configuration file (run)
    --json              machine-readable output
`;

const cli = meow(HELP, {
  importMeta: import.meta,
  flags: {
    config: { type: 'string', shortFlag: 'c' },
    json: { type: 'boolean', default: false },
  },
});

async function main(): Promise<number> {
  const [command, ...args] = cli.input;
  switch (command) {
    case 'run':
      return runCommand(cli.flags.config);
    case 'validate':
      return validateCommand(args, cli.flags.json);
    case 'build-info':
      return buildInfoCommand(cli.flags.json);
    default:
      throw new UsageError(command ? `unknown command "${command}"${HELP}` : HELP);
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`weir: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(err instanceof UsageError ? EXIT.usage : EXIT.failure);
  },
);
