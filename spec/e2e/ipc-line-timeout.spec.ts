import path from 'node:path';
import { pino } from 'pino';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startIpcServer, type IpcServer } from '../../ipc/ipc-server.js';
import { LineClient, type Line } from '../unit/ipc/line-client.js';
import { startIpcNode, type IpcNode } from '../support/ipc-node.js';
import { loudBefore } from '../support/loud-before.js';

// A client that begins a request line and never ends it made the node hold up to
// 1 MiB per connection for as long as it stayed connected (300 such clients: +250 MiB
// RSS, never given back). A begun line now has to end in a bounded time.

const LINE_TIMEOUT_MS = 300;

let node: IpcNode;
let ipc: IpcServer;

loudBefore(test, async () => {
  node = await startIpcNode();
  // A second channel on the same node, with a line timeout short enough to wait for.
  const opts = {
    path: path.join(node.stateDir, 'short.sock'),
    log: pino({ level: 'silent' }),
    publish: node.engine.bus.publish.bind(node.engine.bus),
    lineTimeoutMs: LINE_TIMEOUT_MS,
  };
  ipc = await startIpcServer(node.ops, opts);
});

test.after(async () => {
  await ipc.close();
  await node.stop();
});

const timedOut: Line = {
  type: 'error',
  code: 'LINE_TIMEOUT',
  message: `a request line must end with a newline within ${LINE_TIMEOUT_MS} ms of its first byte`,
};

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

test('a line that never ends: LINE_TIMEOUT, the connection ends, ipc.disconnected says line_timeout', async () => {
  const watcher = await LineClient.connect(ipc.path);
  watcher.send({ type: 'subscribe', events: ['ipc.disconnected'] });
  assert.is((await watcher.next())['type'], 'ack');
  const stuck = await LineClient.connect(ipc.path);
  stuck.send('{"op":"flows.list"');
  assert.equal(await stuck.next(), timedOut);
  await stuck.ended;
  const gone = await watcher.next();
  assert.equal(gone['payload'], { active: 1, pipe: ipc.path, error: 'line_timeout' });
  watcher.close();
});

test('trickling the line byte by byte does not extend its time', async () => {
  const slow = await LineClient.connect(ipc.path);
  const stop = setInterval(() => slow.send(' '), LINE_TIMEOUT_MS / 4);
  try {
    slow.send('{"stats":{}');
    assert.equal(await slow.next(), timedOut);
    await slow.ended;
  } finally {
    clearInterval(stop);
  }
});

test('a line sent in pieces within its time is answered, and an idle connection between lines stays open', async () => {
  const client = await LineClient.connect(ipc.path);
  client.send('{"id":1,');
  await sleep(LINE_TIMEOUT_MS / 3);
  client.send('"stats":{}}\n');
  assert.is((await client.next())['id'], 1);
  await sleep(LINE_TIMEOUT_MS * 3);
  client.send({ id: 2, op: 'flows.list' });
  assert.equal(await client.next(), { type: 'result', op: 'flows.list', result: [], id: 2 });
  client.close();
});

test.run();
