#!/usr/bin/env node
import meow from 'meow';
import { EXIT, UsageError } from './exit-codes.js';
import { NodeRefusedError, NodeUnreachableError } from './ipc-client.js';
import { logFormatOf } from './log-format.js';
import { helpText, isCommand } from './help.js';
import { RedisUnreachableError } from '../actors/errors/redis-unreachable.js';


const cli = meow(helpText(), {
  importMeta: import.meta,
  // A mistyped flag (`--socket` for `--ipc`) would otherwise be dropped without a word,
  // and the command run against another node or none; meow names it and exits 2.
  allowUnknownFlags: false,
  // meow would print package.json's version alone; the build's commit belongs to it.
  autoVersion: false,
  // `-h` and `--help` after a command are that command's help (main), never a run of it.
  autoHelp: false,
  flags: {
    help: { type: 'boolean', shortFlag: 'h', default: false },
    version: { type: 'boolean', default: false },
    types: { type: 'string' },
    write: { type: 'boolean', shortFlag: 'w', default: false },
    config: { type: 'string', shortFlag: 'c' },
    ipc: { type: 'string' },
    json: { type: 'boolean', default: false },
    node: { type: 'string' },
    health: { type: 'string' },
    redis: { type: 'string' },
    listen: { type: 'string' },
    apiKeyFile: { type: 'string' },
    logFormat: { type: 'string' },
    limit: { type: 'number' },
    after: { type: 'number' },
    principal: { type: 'string' },
    outbound: { type: 'string' },
    outcome: { type: 'string' },
  },
});

// Each command is imported when it runs: a client command then starts without loading
// the engine, the config schema and the logger that only `run` needs.
async function main(): Promise<number> {
  const [command, ...args] = cli.input;
  const flags = cli.flags;
  if (flags.help || command === 'help') return printHelp(command === 'help' ? args : [command ?? '']);
  if (flags.version) {
    process.stdout.write(`${(await import('../actors/engine/build-info.js')).weirVersion()}\n`);
    return EXIT.ok;
  }
  if (command === undefined) return printHelp([]);
  checkCounts(flags);
  switch (command) {
    case 'run':
      return (await import('./commands/run.js')).runCommand(runConfigFile(args, flags.config), logFormatOf(flags.logFormat));
    case 'validate':
      return (await import('./commands/validate.js')).validateCommand(args, flags.json);
    case 'format':
      return (await import('./commands/format.js')).formatCommand(args, flags.write);
    case 'build-info':
      noArguments(command, args);
      return (await import('./commands/build-info.js')).buildInfoCommand(flags.json);
    case 'status':
      noArguments(command, args);
      return (await import('./commands/status.js')).statusCommand(flags);
    case 'flows':
      return (await import('./commands/flows.js')).flowsCommand(args, flags);
    case 'events':
      return (await import('./commands/events.js')).eventsCommand(args, flags);
    case 'policies':
      noArguments(command, args);
      return (await import('./commands/policies.js')).policiesCommand(flags);
    case 'principals':
      return (await import('./commands/principals.js')).principalsCommand(args, flags);
    case 'select':
      return (await import('./commands/select.js')).selectCommand(args, flags);
    case 'mode':
      return (await import('./commands/mode.js')).modeCommand(args, flags);
    case 'connector':
      return (await import('./commands/connector-state.js')).connectorCommand(args, flags.json);
    case 'reload':
      noArguments(command, args);
      return (await import('./commands/reload.js')).reloadCommand(flags);
    case 'probe':
      return (await import('./commands/probe.js')).probeCommand(args, flags);
    case 'dead-letters':
      return (await import('./commands/dead-letters.js')).deadLettersCommand(args, flags);
    case 'fleet':
      return (await import('./commands/fleet.js')).fleetCommand(args, flags);
    case 'dashboard':
      return (await import('./commands/dashboard.js')).dashboardCommand(args, flags);
    case 'deliver':
      return (await import('./commands/deliver.js')).deliverCommand(args, { ...flags, logFormat: logFormatOf(flags.logFormat) });
    default:
      throw new UsageError(`unknown command "${command}" (weir help lists the commands)`);
  }
}

/** `weir help [command]`, `weir [command] -h`: the help on stdout, exit 0; an unknown command is a usage error. */
function printHelp([command, ...rest]: readonly (string | undefined)[]): number {
  if (rest.length > 0) throw new UsageError('usage: weir help [command]');
  if (command && !isCommand(command)) throw new UsageError(`unknown command "${command}" (weir help lists the commands)`);
  process.stdout.write(helpText(command || undefined));
  return EXIT.ok;
}

/** `--limit abc` is the caller's mistake (exit 2), not a request for the node to refuse. */
function checkCounts(flags: { limit?: number | undefined; after?: number | undefined }): void {
  for (const [name, value] of Object.entries({ limit: flags.limit, after: flags.after })) {
    if (value !== undefined && !Number.isSafeInteger(value)) throw new UsageError(`--${name} takes a whole number`);
  }
}

/** A command that takes no arguments refuses them rather than run as if they were not there. */
function noArguments(command: string, args: readonly string[]): void {
  if (args.length > 0) throw new UsageError(`usage: weir ${command} (it takes no arguments; got ${args.map((a) => JSON.stringify(a)).join(' ')})`);
}

/**
 * The one config file of `weir run FILE` or `weir run -c FILE`: a second file, or one
 * given both ways, is refused rather than one of them picked without a word.
 */
function runConfigFile(args: readonly string[], config: string | undefined): string | undefined {
  const files = [...(config === undefined ? [] : [config]), ...args];
  if (files.length > 1) {
    throw new UsageError(`usage: weir run [FILE | -c FILE] (one config file; got ${files.map((f) => JSON.stringify(f)).join(' ')})`);
  }
  return files[0];
}

function exitCodeOf(err: unknown): number {
  if (err instanceof UsageError) return EXIT.usage;
  if (err instanceof NodeUnreachableError || err instanceof RedisUnreachableError) return EXIT.unreachable;
  // The node answered, but what the request needs is a Redis it cannot reach.
  if (err instanceof NodeRefusedError) return err.code === 'REDIS_UNAVAILABLE' ? EXIT.unreachable : EXIT.refused;
  return EXIT.failure;
}

/**
 * Exits once stdout and stderr have taken everything written to them: into a pipe
 * (`weir flows --json | jq`) a write can still be queued when the command returns, and
 * process.exit would cut it off (a 700-flow listing stopped after 219 kB).
 */
function exitAfterOutput(code: number): void {
  let pending = 2;
  const done = (): void => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}

main().then(exitAfterOutput, (err: unknown) => {
  process.stderr.write(`weir: ${err instanceof Error ? err.message : String(err)}\n`);
  exitAfterOutput(exitCodeOf(err));
});
