import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { waitFor } from '../support/wait-for.js';
import { LineClient } from '../unit/ipc/line-client.js';
import { startIpcNode, type IpcNode } from '../support/ipc-node.js';
import { loudBefore } from '../support/loud-before.js';

// Every IPC connection holds memory even idle (~80 KiB: 7,000 idle clients held ~580 MB),
// and the channel took as many as came. It now holds a bounded number.

const LIMIT = 3;
let node: IpcNode;

loudBefore(test, async () => {
  node = await startIpcNode({ maxConnections: LIMIT });
});

test.after(async () => {
  await node.stop();
});

const full = {
  type: 'error',
  code: 'TOO_MANY_CONNECTIONS',
  message: `the IPC channel holds ${LIMIT} connections, its most; try again when one ends`,
};

test('a connection over the limit gets TOO_MANY_CONNECTIONS and is ended, unannounced; one is taken again once a place frees', async () => {
  const watcher = await LineClient.connect(node.socketPath);
  watcher.send({ type: 'subscribe', events: ['ipc.connected', 'ipc.disconnected'] });
  assert.is((await watcher.next())['type'], 'ack');
  const held = [await LineClient.connect(node.socketPath), await LineClient.connect(node.socketPath)];
  for (const active of [2, 3]) assert.equal((await watcher.next())['payload'], { active, pipe: node.socketPath });

  const refused = await Promise.all([LineClient.connect(node.socketPath), LineClient.connect(node.socketPath)]);
  for (const client of refused) {
    assert.equal(await client.next(), full);
    await client.ended;
  }
  // The refused ones were never connected: the next event is the first held client leaving.
  held[0]!.close();
  const left = await watcher.next();
  assert.is(left['event_type'], 'ipc.disconnected');
  assert.equal(left['payload'], { active: 2, pipe: node.socketPath });

  const again = await LineClient.connect(node.socketPath);
  assert.equal((await watcher.next())['payload'], { active: 3, pipe: node.socketPath });
  again.send({ id: 1, op: 'flows.list' });
  assert.equal(await again.next(), { type: 'result', op: 'flows.list', result: [], id: 1 });
  await waitFor(() => fullWarnings() >= 1, 5000, 'the warning in the log');
  assert.is(fullWarnings(), 1, 'one warning for the spell the channel was full, not one per refused client');
  for (const client of [watcher, again, ...held]) client.close();
});

function fullWarnings(): number {
  return fs.readFileSync(node.logFile, 'utf8').split('\n').filter((line) => line.includes('IPC channel full')).length;
}

test.run();
