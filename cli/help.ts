/**
 * The help of `weir` and of each command. `-h`, `--help` and `weir help [command]`
 * print it and run nothing, as cobra-based CLIs (sing-box, mihomo's tools) do.
 */

/** Each command's usage lines: the command word, then what follows it. */
const USAGE: Readonly<Record<string, readonly string[]>> = {
  run: ['weir run [FILE | -c FILE]                run the node in the foreground (built-in default without a file)'],
  validate: ['weir validate <config_file>              check a configuration file'],
  format: ['weir format [-w] <config_file>           print the config in canonical form (-w: write it back)'],
  'build-info': ['weir build-info [--json]                 git_hash, features, build_profile, binary_sha256'],
  status: ['weir status [--json]                     the running node at a glance: uptime, memory, flows, sinks'],
  flows: [
    'weir flows [--json] [--limit N] [--after N]',
    '                                         the active flows (--limit, --after: a page, in opening order)',
    'weir flows completed [--json] [--limit N] [--principal KEY] [--outbound TAG] [--outcome OUTCOME]',
    "                                         recent completed flows, newest first (--principal '': none)",
    'weir flows close <flow_id>               end a flow (outcome cancelled, close_reason manual)',
  ],
  events: ['weir events [--types TYPE,...]           flow.snapshot, then live events as JSON lines (Ctrl+C ends)'],
  policies: ['weir policies [--json]                   selectors and url_test groups with their current choice'],
  principals: [
    'weir principals [--json]                 per principal: flows active, opened, completed, failed, bytes',
    'weir principals reset                    start the principals\' since_reset counters over',
  ],
  select: ['weir select <selector_tag> <member_tag>  switch a selector to one of its direct members'],
  mode: [
    'weir mode                                the routing mode in effect',
    'weir mode rule                           route by the rules',
    'weir mode global <target_tag>            route every new flow to one outbound',
  ],
  connector: [
    'weir connector state [--json] <config_file>',
    '                                         sink state read from the state dir, offline (no node needed)',
  ],
  reload: ['weir reload                              re-read the config file (as SIGHUP); hot sections take effect'],
  probe: ['weir probe <url_test_tag>                run a manual url_test probe round (exit 1: no member healthy)'],
  'dead-letters': [
    'weir dead-letters <sink_tag>             a Webhook sink\'s dead letters',
    'weir dead-letters replay <sink_tag> [event_id ...]',
    '                                         make dead letters pending again',
  ],
  fleet: [
    'weir fleet [node_id] [--redis URL | -c FILE] [--json]',
    '                                         the nodes on a Redis, read from Redis alone',
  ],
  dashboard: [
    'weir dashboard [--redis URL | -c FILE] [--listen HOST:PORT] [--api-key-file PATH]',
    '                                         serve the BullMQ dashboard of every node\'s sink',
    '                                         queues on a Redis (default 127.0.0.1:9191)',
  ],
  deliver: [
    'weir deliver -c FILE [--node ID] [--health HOST:PORT]',
    '                                         deliver the Redis queues of the config\'s Webhook',
    '                                         sinks (every node\'s, or one node\'s); no proxying',
  ],
  help: ['weir help [command]                      this help, or one command\'s'],
};

/** The commands that talk to a running node over its IPC socket. */
const CLIENT_COMMANDS = ['status', 'flows', 'events', 'policies', 'principals', 'select', 'mode', 'reload', 'probe', 'dead-letters'];

interface OptionHelp {
  line: string;
  /** The commands it applies to; every command when absent. */
  commands?: readonly string[];
}

const OPTIONS: readonly OptionHelp[] = [
  { line: '-c, --config FILE   run: the configuration file; client commands: the node it configures (its IPC socket)' },
  { line: '--ipc PATH          the node\'s IPC socket (default: $WEIR_STATE_DIR/weir.sock, else ./state/weir.sock)', commands: CLIENT_COMMANDS },
  { line: '--json              machine-readable output' },
  { line: '-w, --write         write the canonical form back to the file', commands: ['format'] },
  { line: '--types TYPE,...    only these event types (e.g. flow.started,flow.completed)', commands: ['events'] },
  { line: '--limit N           at most N flows (default 100, at most 1000)', commands: ['flows'] },
  { line: '--after N           the flows opened after this cursor (a page\'s next, shown as "more: --after N")', commands: ['flows'] },
  { line: "--principal KEY     completed: only this principal's flows ('' for flows without one)", commands: ['flows'] },
  { line: '--outbound TAG      completed: only flows through this outbound', commands: ['flows'] },
  { line: '--outcome OUTCOME   completed: only flows with this outcome', commands: ['flows'] },
  { line: '--redis URL         the Redis to read (else the config\'s)', commands: ['fleet', 'dashboard'] },
  { line: '--listen HOST:PORT  where to serve it (default 127.0.0.1:9191)', commands: ['dashboard'] },
  { line: '--api-key-file PATH the API key (else $WEIR_API_KEY, else the config\'s control.api_key)', commands: ['dashboard'] },
  { line: '--node ID           only this node\'s queues', commands: ['deliver'] },
  { line: '--health HOST:PORT  serve GET /health there', commands: ['deliver'] },
  { line: '--log-format FORMAT json or pretty (default: pretty on a terminal, else json)', commands: ['run', 'deliver'] },
  { line: '-h, --help          this help; runs nothing' },
  { line: '--version           the version, as `weir status` reports it', commands: [] },
];

const EXIT_CODES = `  Exit codes
    0 ok, 1 failure, 2 usage error, 3 node or Redis not reachable, 4 refused by the node
`;

export function isCommand(name: string): boolean {
  return Object.hasOwn(USAGE, name);
}

function section(title: string, lines: readonly string[]): string {
  return `  ${title}\n${lines.map((l) => `    ${l}\n`).join('')}`;
}

/** The help of `weir` (every command and option), or of one command (its usage and its options). */
export function helpText(command?: string): string {
  if (command === undefined) {
    const usage = Object.values(USAGE).flat().map((l) => (l.startsWith('weir ') ? `$ ${l}` : `  ${l}`));
    return `\n${section('Usage', usage)}\n${section('Options', OPTIONS.map((o) => o.line))}\n${EXIT_CODES}`;
  }
  const usage = (USAGE[command] ?? []).map((l) => (l.startsWith('weir ') ? `$ ${l}` : `  ${l}`));
  const options = OPTIONS.filter((o) => o.commands === undefined || o.commands.includes(command)).map((o) => o.line);
  return `\n${section('Usage', usage)}\n${section('Options', options)}\n${EXIT_CODES}`;
}
