import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LineClient } from '../unit/ipc/line-client.js';
import { startIpcNode, type IpcNode } from '../support/ipc-node.js';
import { loudBefore } from '../support/loud-before.js';

let node: IpcNode;

loudBefore(test, async () => {
  node = await startIpcNode();
});
test.after(async () => {
  await node.stop();
});

/** The control.audit payloads in the ring, oldest first. */
function audits(): Record<string, unknown>[] {
  const page = JSON.parse(node.ops.eventsJson({ types: ['control.audit'], limit: 1000 }).json.toString()) as { events: { payload: Record<string, unknown> }[] };
  return page.events.map((e) => e.payload);
}

test('IPC writes are audited with the node\'s uid and their result; reads are not', async () => {
  const client = await LineClient.connect(node.socketPath);
  client.send({ id: 1, op: 'flows.close', flow_id: 'no-such-flow' });
  assert.is((await client.next())['code'], 'FLOW_NOT_FOUND');
  client.send({ id: 2, op: 'mode', mode: 'rule' });
  assert.is((await client.next())['type'], 'result');
  client.send({ id: 3, op: 'status' });
  assert.is((await client.next())['type'], 'result');
  client.send({ id: 4, op: 'config.apply', upsert_sinks: [{ tag: 'ipc-hook', type: 'webhook', url: 'http://127.0.0.1:59999/in', token: 'ipc-token-not-for-the-trail' }] });
  assert.is((await client.next())['type'], 'result');
  client.close();
  const caller = { transport: 'ipc', key_id: null, remote: null, uid: process.getuid!() };
  assert.equal(audits(), [
    { caller, operation: 'flows.close', target: { flow_id: 'no-such-flow' }, result: 'error', code: 'FLOW_NOT_FOUND' },
    { caller, operation: 'mode', target: { mode: 'rule' }, result: 'ok', code: null },
    { caller, operation: 'config.apply', target: { sections: [], upsert_sinks: ['ipc-hook'], remove_sinks: [] }, result: 'ok', code: null },
  ]);
  assert.not.ok(JSON.stringify(audits()).includes('ipc-token-not-for-the-trail'));
});

test.run();
