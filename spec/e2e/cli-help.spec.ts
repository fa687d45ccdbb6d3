import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCommand } from '../support/run-command.js';
import { tempDir } from '../support/temp-dir.js';
import { WEIR_BIN } from '../support/weir-bin.js';

const COMMANDS = [
  'run', 'validate', 'format', 'build-info', 'status', 'flows', 'events', 'policies', 'principals', 'select',
  'mode', 'connector', 'reload', 'probe', 'dead-letters', 'fleet', 'dashboard', 'deliver',
];

/**
 * A real socket where a node's IPC socket would be, counting who connects: a help that
 * ran its command would reach it. The cwd is empty, so a `run` would leave ./state.
 */
async function watchedPlace(): Promise<{ cwd: string; socket: string; connections: () => number; close: () => Promise<void> }> {
  const cwd = tempDir('weir-help-');
  const socket = path.join(cwd, 'weir.sock');
  let connections = 0;
  const server = net.createServer((c) => {
    connections++;
    c.destroy();
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return { cwd, socket, connections: () => connections, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function weirIn(cwd: string, args: readonly string[]) {
  return runCommand(WEIR_BIN, args, { cwd, timeoutMs: 30_000, env: { WEIR_STATE_DIR: '' } });
}

test('-h, --help and weir help <command> print the command help on stdout, exit 0 and run nothing', async () => {
  const place = await watchedPlace();
  try {
    for (const command of COMMANDS) {
      for (const args of [[command, '--help', '--ipc', place.socket], [command, '-h', '--ipc', place.socket], ['help', command]]) {
        const result = await weirIn(place.cwd, args);
        assert.equal([result.code, result.stderr], [0, ''], args.join(' '));
        assert.match(result.stdout, new RegExp(`^ +\\$ weir ${command}\\b`, 'm'), args.join(' '));
        assert.match(result.stdout, /^ +-h, --help +this help; runs nothing$/m, args.join(' '));
      }
    }
    assert.is(place.connections(), 0, 'a help reached the node socket');
    assert.equal(fs.readdirSync(place.cwd), ['weir.sock'], 'a help left state behind');
  } finally {
    await place.close();
  }
});

test('weir, weir -h, weir --help and weir help print every command, exit 0', async () => {
  const cwd = tempDir('weir-help-');
  for (const args of [[], ['-h'], ['--help'], ['help']]) {
    const result = await weirIn(cwd, args);
    assert.equal([result.code, result.stderr], [0, ''], args.join(' '));
    for (const command of COMMANDS) assert.match(result.stdout, new RegExp(`^ +\\$ weir ${command}\\b`, 'm'), `${args.join(' ')}: ${command}`);
  }
});

test('an unknown command, or help for one, is named and exits 2', async () => {
  const cwd = tempDir('weir-help-');
  for (const args of [['frobnicate'], ['help', 'frobnicate'], ['frobnicate', '--help']]) {
    const result = await weirIn(cwd, args);
    assert.equal([result.code, result.stdout, result.stderr], [2, '', 'weir: unknown command "frobnicate" (weir help lists the commands)\n'], args.join(' '));
  }
});

test.run();
