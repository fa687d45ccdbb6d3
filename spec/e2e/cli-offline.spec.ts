import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeConnectorState } from '../../actors/sinks/connector-state-file.js';
import { runWeir } from '../support/weir-bin.js';

/** What every "not running" message adds: how to point the CLI at a node. */
const HINT = 'a node started with a config file: add -c FILE, or --ipc PATH';

let dir: string;

test.before.each(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-cli-'));
});

test.after.each(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function writeConfig(extra: Record<string, unknown> = {}): string {
  const file = path.join(dir, 'weir.json');
  const config = {
    node: { state_dir: './var' },
    control: { api_key: 'offline-key-not-a-secret' },
    outbounds: [{ type: 'direct', tag: 'direct' }],
    event_sinks: [
      { type: 'jsonl', tag: 'archive', path: './var/events.jsonl' },
      { type: 'webhook', tag: 'billing', url: 'https://controller.example/ingest', token: 'tok-not-a-secret' },
    ],
    ...extra,
  };
  fs.writeFileSync(file, JSON.stringify(config));
  return file;
}

test('a client command with no node running exits 3 with a clear message', async () => {
  const socket = path.join(dir, 'none.sock');
  const result = await runWeir(['status', '--ipc', socket]);
  assert.equal([result.code, result.stdout, result.stderr], [3, '', `weir: the node is not running (no IPC socket at ${socket}; ${HINT})\n`]);
});

test('-c finds the socket in the config state dir, and control.ipc when it is set', async () => {
  const byStateDir = await runWeir(['flows', '-c', writeConfig()]);
  assert.equal([byStateDir.code, byStateDir.stderr], [3, `weir: the node is not running (no IPC socket at ${path.join(dir, 'var', 'weir.sock')}; ${HINT})\n`]);
  const byIpc = await runWeir(['policies', '-c', writeConfig({ control: { api_key: 'k-0123456789abcdef', ipc: 'run/n.sock' } })]);
  assert.equal([byIpc.code, byIpc.stderr], [3, `weir: the node is not running (no IPC socket at ${path.join(dir, 'run', 'n.sock')}; ${HINT})\n`]);
});

test('WEIR_STATE_DIR moves the default socket', async () => {
  const previous = process.env['WEIR_STATE_DIR'];
  process.env['WEIR_STATE_DIR'] = dir;
  try {
    const result = await runWeir(['mode', 'rule']);
    assert.equal([result.code, result.stderr], [3, `weir: the node is not running (no IPC socket at ${path.join(dir, 'weir.sock')}; ${HINT})\n`]);
  } finally {
    if (previous === undefined) delete process.env['WEIR_STATE_DIR'];
    else process.env['WEIR_STATE_DIR'] = previous;
  }
});

test('wrong arguments exit 2', async () => {
  for (const args of [['select', 'proxy'], ['flows', 'close'], ['mode', 'sideways'], ['connector', 'state'], ['frobnicate']]) {
    assert.is((await runWeir([...args, '--ipc', path.join(dir, 'none.sock')])).code, 2, args.join(' '));
  }
});

test('a command given arguments it does not take exits 2 before anything is asked of a node', async () => {
  for (const args of [['status', 'extra'], ['policies', 'extra'], ['reload', 'extra'], ['build-info', 'extra'], ['events', 'extra']]) {
    const result = await runWeir([...args, '--ipc', path.join(dir, 'none.sock')]);
    assert.is(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
  }
});

test('an unknown flag is named and exits 2 before anything is asked of a node', async () => {
  const result = await runWeir(['flows', 'close', 'f-1', '--socket', path.join(dir, 'none.sock')]);
  assert.equal([result.code, result.stdout], [2, '']);
  assert.match(result.stderr, /Unknown flag\s+--socket/);
});

test('connector state --json works with no node: zeros and state_known false when nothing was persisted', async () => {
  const result = await runWeir(['connector', 'state', '--json', writeConfig()]);
  assert.is(result.code, 0, result.stderr);
  const zero = { pending: 0, total_delivered: 0, total_failed: 0, replay_gaps: 0, last_error: null, outbox_storage: { write_blocked: false } };
  assert.equal(JSON.parse(result.stdout), [
    { tag: 'archive', type: 'jsonl', state_known: false, ...zero },
    { tag: 'billing', type: 'webhook', state_known: false, ...zero },
  ]);
});

test('connector state --json shows the persisted state of each sink of the config', async () => {
  const config = writeConfig();
  const counters = {
    pending: 2,
    total_delivered: 40,
    total_failed: 1,
    replay_gaps: 0,
    last_error: { message: 'EIO', at_unix_ms: 1_700_000_000_000 },
    outbox_storage: { write_blocked: false },
  };
  // `gone` is no longer in the config: it is not reported.
  const archive = { tag: 'archive', type: 'jsonl', ...counters };
  await writeConnectorState(path.join(dir, 'var'), [archive, { ...archive, tag: 'gone' }]);
  const result = await runWeir(['connector', 'state', '--json', config]);
  assert.is(result.code, 0, result.stderr);
  const [first, second] = JSON.parse(result.stdout) as Record<string, unknown>[];
  assert.equal(first, { tag: 'archive', type: 'jsonl', state_known: true, ...counters });
  assert.equal([second?.['tag'], second?.['state_known']], ['billing', false]);
  const table = await runWeir(['connector', 'state', config]);
  assert.match(table.stdout, /^archive +jsonl +yes +2 +40 +1 +0 +no +EIO$/m);
});

test("connector state needs none of the node's secrets: an API key from a variable this shell lacks, a token file it cannot read", async () => {
  const config = writeConfig({ control: { api_key: { env: 'WEIR_SPEC_UNSET_KEY' } } });
  const file = JSON.parse(fs.readFileSync(config, 'utf8')) as { event_sinks: Record<string, unknown>[] };
  file.event_sinks[1]!['token'] = { file: './no-such-token' };
  fs.writeFileSync(config, JSON.stringify(file));
  const result = await runWeir(['connector', 'state', '--json', config]);
  assert.is(result.code, 0, result.stderr);
  assert.equal((JSON.parse(result.stdout) as { tag: string }[]).map((s) => s.tag), ['archive', 'billing']);
});

test('connector state with an invalid config exits 1 and names the problem', async () => {
  const file = writeConfig({ outbounds: [] });
  const result = await runWeir(['connector', 'state', '--json', file]);
  assert.equal([result.code, result.stdout], [1, '']);
  assert.match(result.stderr, /invalid configuration/);
});

test.run();
