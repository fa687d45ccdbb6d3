import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { IpcSocketError } from '../../ipc/ipc-socket-file.js';
import { startIpcServer } from '../../ipc/ipc-server.js';
import { rejectionOf } from '../support/rejection.js';
import { LineClient } from '../unit/ipc/line-client.js';
import { startIpcNode, type IpcNode } from '../support/ipc-node.js';
import { loudBefore } from '../support/loud-before.js';

let node: IpcNode;
const log = pino({ level: 'silent' });

loudBefore(test, async () => {
  node = await startIpcNode();
});

test.after(async () => {
  await node.stop();
});

async function answersStats(socketPath: string): Promise<boolean> {
  const client = await LineClient.connect(socketPath);
  client.send({ stats: {} });
  const reply = await client.next();
  client.close();
  return reply['type'] === 'stats';
}

test('replaces a socket file a killed node left behind', async () => {
  const stale = path.join(node.stateDir, 'stale.sock');
  // A process that dies by SIGKILL while listening cannot remove its socket file.
  const script = `require('net').createServer().listen(${JSON.stringify(stale)}, () => process.kill(process.pid, 'SIGKILL'))`;
  spawnSync(process.execPath, ['-e', script]);
  assert.ok(fs.lstatSync(stale).isSocket(), 'the stale socket file exists');
  const server = await startIpcServer(node.ops, { path: stale, log, publish: () => undefined });
  assert.ok(await answersStats(stale));
  assert.is(fs.statSync(stale).mode & 0o777, 0o600);
  await server.close();
  assert.not.ok(fs.existsSync(stale), 'close() removes the socket file');
});

test('refuses to start while a live node answers on the path, which keeps answering', async () => {
  const err = await rejectionOf(startIpcServer(node.ops, { path: node.socketPath, log, publish: () => undefined }));
  assert.instance(err, IpcSocketError);
  assert.is((err as IpcSocketError).code, 'IPC_SOCKET_IN_USE');
  assert.ok(await answersStats(node.socketPath));
});

test('refuses a path that holds something other than a socket, and leaves it alone', async () => {
  const file = path.join(node.stateDir, 'not-a-socket');
  fs.writeFileSync(file, 'keep me');
  const err = await rejectionOf(startIpcServer(node.ops, { path: file, log, publish: () => undefined }));
  assert.is((err as IpcSocketError).code, 'IPC_PATH_NOT_SOCKET');
  assert.is(fs.readFileSync(file, 'utf8'), 'keep me');
});

test.run();
