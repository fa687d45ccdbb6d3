#!/usr/bin/env node
import meow from 'meow';
import { EXIT, UsageError } from './exit-codes.js';
import { NodeRefusedError, NodeUnreachableError } from './ipc-client.js';
import { logFormatOf } from './log-format.js';

const HELP = `
  Usage
    $ weir run [FILE | -c FILE]                run the node in the foreground (built-in default without a file)
    $ weir validate <config_file>              check a configuration file
    $ weir format [-w] <config_file>           print the config in canonical form (-w: write it back)
    $ weir build-info [--json]                 git_hash, features, build_profile, binary_sha256
    $ weir status [--json]                     the running node at a glance: uptime, memory, flows, sinks
    $ weir flows [--json] [--limit N] [--after N]
                                               the active flows (--limit, --after: a page, in opening order)
    $ weir flows completed [--json] [--limit N] [--principal KEY] [--outbound TAG] [--outcome OUTCOME]
                                               recent completed flows, newest first (--principal '': none)
    $ weir flows close <flow_id>               end a flow (outcome cancelled, close_reason manual)
    $ weir events [--types TYPE,...]           flow.snapshot, then live events as JSON lines (Ctrl+C ends)
    $ weir policies [--json]                   selectors and url_test groups with their current choice
    $ weir principals [--json]                 per principal: flows active, opened, failed, bytes up and down
    $ weir principals reset                    start the principals' since_reset counters over
    $ weir select <selector_tag> <member_tag>  switch a selector to one of its direct members
    $ weir mode                                the routing mode in effect
    $ weir mode rule                           route by the rules
    $ weir mode global <target_tag>            route every new flow to one outbound
    $ weir connector state [--json] <config_file>
                                               sink state read from the state dir, offline (no node needed)
    $ weir reload                              re-read the config file (as SIGHUP); hot sections take effect
    $ weir probe <url_test_tag>                run a manual url_test probe round
    $ weir dead-letters <sink_tag>             a Webhook sink's dead letters
    $ weir dead-letters replay <sink_tag> [event_id ...]
                                               make dead letters pending again
    $ weir fleet [node_id] [--redis URL | -c FILE] [--json]
                                               the nodes on a Redis, read from Redis alone
    $ weir dashboard [--redis URL | -c FILE] [--listen HOST:PORT] [--api-key-file PATH]
                                               serve the BullMQ dashboard of every node's sink
                                               queues on a Redis (default 127.0.0.1:9191)
    $ weir deliver -c FILE [--node ID] [--health HOST:PORT]
                                               deliver the Redis queues of the config's Webhook
                                               sinks (every node's, or one node's); no proxying

  Options
    -c, --config FILE   configuration file (run; for the others: the node whose control.ipc to use)
    --ipc PATH          the node's IPC socket (default: $WEIR_STATE_DIR/weir.sock, else ./state/weir.sock)
    --json              machine-readable output
    -w, --write         format: write the canonical form back to the file
    --types TYPE,...    events: only these event types (e.g. flow.started,flow.completed)
    --limit N           flows, flows completed: at most N flows (default 100, at most 1000)
    --after N           flows: the flows opened after this cursor (a page's next, shown as "more: --after N")
    --principal KEY     flows completed: only this principal's flows ('' for flows without one)
    --outbound TAG      flows completed: only flows through this outbound
    --outcome OUTCOME   flows completed: only flows with this outcome
    --version           the version, as \`weir status\` reports it
    --redis URL         fleet, dashboard: the Redis to read (else the config's)
    --listen HOST:PORT  dashboard: where to serve it (default 127.0.0.1:9191)
    --api-key-file PATH dashboard: the API key (else $WEIR_API_KEY, else the config's control.api_key)
    --node ID           deliver: only this node's queues
    --health HOST:PORT  deliver: serve GET /health there
    --log-format FORMAT run, deliver: json or pretty (default: pretty on a terminal, else json)

  Exit codes
    0 ok, 1 failure, 2 usage error, 3 node not reachable, 4 refused by the node
`;

const cli = meow(HELP, {
  importMeta: import.meta,
  // A mistyped flag (`--socket` for `--ipc`) would otherwise be dropped without a word,
  // and the command run against another node or none; meow names it and exits 2.
  allowUnknownFlags: false,
  // meow would print package.json's version alone; the build's commit belongs to it.
  autoVersion: false,
  flags: {
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
  if (flags.version) {
    process.stdout.write(`${(await import('../actors/engine/build-info.js')).weirVersion()}\n`);
    return EXIT.ok;
  }
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
      throw new UsageError(command ? `unknown command "${command}"${HELP}` : HELP);
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
  if (err instanceof NodeUnreachableError) return EXIT.unreachable;
  if (err instanceof NodeRefusedError) return EXIT.refused;
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
