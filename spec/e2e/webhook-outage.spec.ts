import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { E2E_NODE_ID } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { runWeir } from '../support/weir-bin.js';
import { assertWellFormed, completedById, sourcePortOf } from '../support/webhook-expect.js';
import { HOOK_TOKEN, startHookNode, stopAll } from '../support/webhook-node.js';

test('a receiver down for a while gets the whole backlog when it is back; failed attempts are counted; the state reads offline', async () => {
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, hook: { url: receiver.url(), batch_size: 1 } });
  try {
    const ports = await hn.curlFlows(2);
    await hn.sinkWhen((s) => s.total_delivered === 2, 'the first two deliveries');

    await receiver.stop();
    ports.push(...(await hn.curlFlows(8)));
    // Each of the 8 is tried at once and refused; only then is the receiver "down for a while".
    const down = await hn.sinkWhen((s) => s.pending === 8 && s.total_failed >= 8, 'a failed attempt of every backlog entry');
    assert.match(down.last_error!.message, /^network error/);
    assert.ok(down.oldest_pending_age_ms! > 0, 'the backlog has an age');
    assert.is(down.total_delivered, 2);
    await sleep(1000);
    const failedWhileDown = (await hn.sink())!.total_failed;
    assert.ok(failedWhileDown >= down.total_failed);

    await receiver.start();
    const drained = await hn.sinkWhen((s) => s.pending === 0 && s.total_delivered === 10, 'the backlog to drain', { timeoutMs: 15_000 });
    const answeredOk = receiver.requests().filter((r) => r.status === 200).length;
    assert.is(drained.total_delivered, answeredOk, 'total_delivered counts each acknowledged request');
    assert.ok(drained.total_failed >= failedWhileDown, 'total_failed never goes back');
    assert.is(drained.oldest_pending_age_ms, null);
    assert.equal([drained.replay_gaps, drained.dead_letters, drained.outbox_storage.write_blocked], [0, 0, false]);
    const completed = completedById(receiver.acknowledged());
    assert.is(completed.size, 10);
    assert.equal([...completed.values()].map(sourcePortOf).sort(), [...ports].sort(), 'one flow.completed per curl');
    assertWellFormed(receiver.requests(), E2E_NODE_ID);

    assert.is(await hn.node.stop(), 0);
    const offline = await runWeir(['connector', 'state', '--json', hn.configPath]);
    assert.is(offline.code, 0, offline.stderr);
    const hook = (JSON.parse(offline.stdout) as Record<string, unknown>[]).find((s) => s['tag'] === 'hook');
    // Read from the outbox itself: the same as the live state the node showed last.
    // last_delivered_at_unix_ms is of the running node only.
    const { last_delivered_at_unix_ms: deliveredAt, ...persisted } = drained;
    assert.ok(typeof deliveredAt === 'number' && deliveredAt > drained.last_error!.at_unix_ms, 'delivered after the outage');
    assert.equal(hook, { ...persisted, state_known: true });
    assert.equal([drained.pending, drained.total_delivered], [0, 10]);
    for (const text of [...hn.bodies, offline.stdout, hn.node.stdout(), hn.node.stderr()]) assert.not.ok(text.includes(HOOK_TOKEN), 'no token');
  } finally {
    await stopAll(hn, receiver, origin);
  }
});

test.run();
