import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { E2E_NODE_ID } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { runWeir } from '../support/weir-bin.js';
import { assertWellFormed, completedById, sourcePortOf } from '../support/webhook-expect.js';
import { HOOK_TOKEN, startHookNode, type SinkView, stopAll } from '../support/webhook-node.js';

const FLOWS = 16;

test('kill -9 mid-delivery loses nothing the outbox committed: after a restart every flow.completed arrives', async () => {
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  // A slow receiver: deliveries are in flight and a backlog waits when the node dies.
  receiver.respond(() => ({ status: 200, delayMs: 300 }));
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, hook: { url: receiver.url(), batch_size: 1 } });
  try {
    const ports = await hn.curlFlows(FLOWS);
    // Committed: the outbox holds (or has delivered) the flow.completed of every curl.
    const before = await hn.sinkWhen((s) => s.pending + s.total_delivered === FLOWS, 'every flow.completed in the outbox');
    assert.ok(before.pending > 0, `a backlog at the kill (${before.pending} pending)`);
    await waitFor(() => receiver.inFlight() > 0, 5000, 'a delivery in flight');
    await hn.node.kill9();
    const answeredBeforeKill = receiver.requests().filter((r) => r.status === 200).length;
    const acknowledgedBeforeKill = receiver.acknowledged().length;
    assert.ok(answeredBeforeKill < FLOWS, 'the kill came before the end of the deliveries');
    // Offline, the outbox itself says where delivery stood: each event pending or delivered.
    const offline = await runWeir(['connector', 'state', '--json', hn.configPath]);
    assert.is(offline.code, 0, offline.stderr);
    const killed = (JSON.parse(offline.stdout) as SinkView[]).find((s) => s.tag === 'hook')!;
    assert.is(killed.pending + killed.total_delivered, FLOWS);
    assert.ok(killed.pending > 0 && killed.total_delivered <= answeredBeforeKill);

    receiver.respond(() => ({ status: 200 }));
    await hn.restart();
    const after = await hn.sinkWhen((s) => s.pending === 0 && completedById(receiver.acknowledged()).size === FLOWS, 'every flow.completed delivered after the restart', { timeoutMs: 15_000 });
    const completed = completedById(receiver.acknowledged());
    assert.equal([...completed.values()].map(sourcePortOf).sort(), [...ports].sort(), 'one flow.completed per curl');
    // A redelivery is the same event again, not a rebuilt one.
    for (const e of receiver.acknowledged()) assert.equal(e, completed.get(String(e['event_id'])));
    // At least once: whatever was answered but not yet acknowledged in the outbox comes again,
    // on top of every event still pending at the kill.
    const redelivered = acknowledgedBeforeKill - killed.total_delivered;
    assert.ok(receiver.acknowledged().length >= FLOWS + redelivered, `${receiver.acknowledged().length} acknowledged, ${redelivered} answered but not recorded`);
    assert.is(after.dead_letters, 0);
    assertWellFormed(receiver.requests(), E2E_NODE_ID);
  } finally {
    await stopAll(hn, receiver, origin);
  }
});

test.run();
