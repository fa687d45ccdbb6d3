import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readJsonl, ofType, waitForEvents } from '../support/jsonl.js';
import { E2E_NODE_ID } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { assertWellFormed, completedById } from '../support/webhook-expect.js';
import { HOOK_TOKEN, startHookNode, stopAll } from '../support/webhook-node.js';

/** Room for a few flow.completed envelopes (about 2 KB each), not for ten. */
const MAX_BYTES = 6000;

test('a full outbox blocks writes, proxying goes on, the missed range is one replay gap that outlives the drain', async () => {
  const startedAt = Date.now();
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  await receiver.stop();
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, hook: { url: receiver.url() }, outbox: { max_bytes: MAX_BYTES } });
  try {
    // One flow at a time, each taken by the sink (kept, or in a gap) before the next: two
    // flow.completed in one batching window are one append, which can miss where the
    // second alone would have fitted, and make two gaps of what is one here.
    for (let i = 0; i < 6; i++) {
      const pending = (await hn.sink('hook'))!.pending;
      await hn.curlFlow();
      const completed = await waitForEvents(hn.events, (es) => ofType(es, 'flow.completed').length === i + 1, 5000, `flow.completed ${i + 1}`);
      const sequence = ofType(completed, 'flow.completed')[i]!.sequence;
      await hn.sinkWhen((s) => s.pending > pending || (s.gaps ?? []).some((g) => g.to_sequence >= sequence), `flow ${i + 1} kept or missed`);
    }
    const blocked = await hn.sinkWhen((s) => s.outbox_storage.write_blocked && s.replay_gaps === 1, 'write_blocked and a replay gap');
    assert.is(blocked.outbox_storage.write_blocked_reason, 'max_bytes');
    const kept = blocked.pending;
    assert.ok(kept >= 1 && kept < 6, `${kept} of 6 kept`);
    assert.ok(blocked.outbox_storage.bytes! <= MAX_BYTES);

    // Proxying does not wait for the outbox: these curls succeed while it is full.
    await hn.curlFlows(2, 1);
    const events = await waitForEvents(hn.events, (es) => ofType(es, 'flow.completed').length === 8, 5000, 'eight flow.completed');
    const sequences = ofType(events, 'flow.completed').map((e) => e.sequence);
    const gapsNow = await hn.sinkWhen((s) => s.gaps?.[0]?.to_sequence === sequences[7], 'the gap to cover the last flow.completed', { timeoutMs: 5000 });
    assert.is(gapsNow.replay_gaps, 1, 'one contiguous missed range is one gap');
    assert.is(gapsNow.gaps!.length, 1);
    const gap = gapsNow.gaps![0]!;
    assert.equal([gap.from_sequence, gap.to_sequence], [sequences[kept], sequences[7]]);
    assert.ok(gap.at_unix_ms >= startedAt && gap.at_unix_ms <= Date.now());
    const warnings = ofType(readJsonl(hn.events), 'engine.warning').filter((e) => e.payload['code'] === 'outbox_write_blocked');
    assert.is(warnings.length, 1, 'engine.warning once per episode');
    assert.match(String(warnings[0]!.payload['message']), /sink "hook"/);

    await receiver.start();
    const drained = await hn.sinkWhen((s) => s.pending === 0 && !s.outbox_storage.write_blocked, 'the drain to unblock writes', { timeoutMs: 15_000 });
    assert.equal([drained.total_delivered, drained.replay_gaps, drained.gaps], [kept, 1, [gap]], 'the drain never clears replay_gaps');
    const firstKept = ofType(events, 'flow.completed').slice(0, kept).map((e) => e.event_id);
    assert.equal([...completedById(receiver.acknowledged()).keys()].sort(), firstKept.sort(), 'the kept events, and only those');

    // Writes resume by themselves: the next event is kept and delivered.
    await hn.curlFlow();
    const resumed = await hn.sinkWhen((s) => s.total_delivered === kept + 1, 'a delivery after the block');
    assert.equal([resumed.replay_gaps, resumed.outbox_storage.write_blocked], [1, false]);
    assert.is(ofType(readJsonl(hn.events), 'engine.warning').length, 1, 'no new warning without a new miss');
    assertWellFormed(receiver.requests(), E2E_NODE_ID);
  } finally {
    await stopAll(hn, receiver, origin);
  }
});

test.run();
