import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LineClient, type Line } from '../unit/ipc/line-client.js';
import { startIpcNode, type IpcNode } from '../support/ipc-node.js';
import { loudBefore } from '../support/loud-before.js';

let node: IpcNode;

loudBefore(test, async () => {
  node = await startIpcNode({ maxBacklogBytes: 256 * 1024 });
});

test.after(async () => {
  await node.stop();
});

const EVENTS = 5000;

/** Publishes the burst; resolves with the sequence each of its events got. */
async function publishBurst(): Promise<number[]> {
  const sequences: number[] = [];
  for (let i = 0; i < EVENTS; i += 1) {
    const published = node.engine.bus.publish({
      event_type: 'policy.selected',
      payload: { policy_tag: 'burst', policy_kind: 'selector', selected: `m${i}`, previous: 'x'.repeat(200) },
    });
    sequences.push(published.sequence);
    // About 10k events/s: a client that reads keeps up, even in this same process.
    if (i % 10 === 9) await sleep(1);
  }
  return sequences;
}

test('cuts off a subscriber that stops reading, while another gets every event and the node answers', async () => {
  const stalled = await LineClient.connect(node.socketPath);
  const reader = await LineClient.connect(node.socketPath);
  for (const c of [stalled, reader]) c.send({ type: 'subscribe', events: ['policy.selected'] });
  await stalled.next();
  await reader.next();
  stalled.stream.pause();

  const received: Line[] = [];
  const collecting = (async () => {
    while (received.length < EVENTS) received.push(await reader.next());
  })();
  const published = await publishBurst();
  await collecting;

  stalled.stream.resume();
  await stalled.ended;
  const lines = [...stalled.pending];
  assert.equal(lines.at(-1), {
    type: 'error',
    code: 'SLOW_CONSUMER',
    message: `the client left more than ${256 * 1024} bytes unread; reconnect to subscribe again`,
  });
  assert.ok(lines.length < EVENTS / 2, `the stalled client got ${lines.length} lines before the cut`);
  const selected = received.map((l) => (l['payload'] as { selected: string }).selected);
  assert.equal(selected, Array.from({ length: EVENTS }, (_, i) => `m${i}`));
  // Other events (stats.sampled each second) take sequences between the burst's: the
  // reader must get exactly the burst's, not a run without holes.
  assert.equal(received.map((l) => l['sequence']), published, 'no gap and no duplicate');

  reader.send({ id: 'alive', op: 'flows.list' });
  assert.equal(await reader.nextMatching((l) => l['type'] === 'result'), { type: 'result', op: 'flows.list', result: [], id: 'alive' });
  reader.close();
});

test.run();
