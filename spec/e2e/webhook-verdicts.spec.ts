import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { E2E_NODE_ID } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startWebhookReceiver, type Answer } from '../support/webhook-receiver.js';
import { assertWellFormed, completedById, sourcePortOf } from '../support/webhook-expect.js';
import { HOOK_TOKEN, startHookNode, stopAll } from '../support/webhook-node.js';

test('500 is retried, 429 waits its Retry-After, 400 dead-letters; a replay delivers the dead letter', async () => {
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  const script: Answer[] = [{ status: 500 }, { status: 429, headers: { 'retry-after': '1' } }, { status: 400 }];
  receiver.respond((_req, attempt) => script[attempt - 1] ?? { status: 204 });
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, hook: { url: receiver.url() } });
  try {
    const port = await hn.curlFlow();
    const dead = await hn.sinkWhen((s) => s.dead_letters === 1, 'the dead letter');
    assert.equal([dead.pending, dead.total_delivered, dead.total_failed], [0, 0, 3]);
    assert.is(dead.last_error!.message, 'receiver answered HTTP 400');
    const attempts = receiver.requests();
    assert.equal(attempts.map((r) => r.status), [500, 429, 400]);
    assert.is(new Set(attempts.map((r) => r.webhookId)).size, 1, 'one event, one webhook-id');
    const afterRetryAfter = attempts[2]!.at - attempts[1]!.at;
    assert.ok(afterRetryAfter >= 1000, `the attempt after "Retry-After: 1" came ${afterRetryAfter} ms later`);

    const listed = await hn.api('/sinks/hook/dead-letters');
    assert.is(listed.status, 200, listed.text);
    assert.is(listed.json.dead_letters.length, 1);
    const letter = listed.json.dead_letters[0];
    assert.equal([letter.id, letter.attempts, letter.error, letter.replayed_at_unix_ms], [attempts[0]!.webhookId, 3, 'receiver answered HTTP 400', null]);
    assert.is(letter.body, attempts[0]!.body, 'the dead letter keeps the body as it was sent');
    assert.ok(letter.dead_at_unix_ms >= attempts[2]!.at);

    const replay = await hn.api('/sinks/hook/dead-letters/replay', { method: 'POST', body: {} });
    assert.equal([replay.status, replay.json], [200, { sink: 'hook', replayed: 1 }]);
    const delivered = await hn.sinkWhen((s) => s.total_delivered === 1, 'the replayed delivery');
    assert.equal([delivered.pending, delivered.dead_letters, delivered.total_failed], [0, 0, 3]);
    const last = receiver.requests().at(-1)!;
    assert.equal([last.status, last.webhookId], [204, attempts[0]!.webhookId]);
    assert.is(sourcePortOf(receiver.acknowledged()[0]!), port);
    assert.equal((await hn.api('/sinks/hook/dead-letters')).json, { dead_letters: [] });
    assertWellFormed(receiver.requests(), E2E_NODE_ID);
  } finally {
    await stopAll(hn, receiver, origin);
  }
});

test('retry_for_s gives up on an event that keeps failing; a replay opens a new retry window', async () => {
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  receiver.respond(() => ({ status: 503 }));
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, hook: { url: receiver.url(), retry_for_s: 1 } });
  try {
    await hn.curlFlow();
    await hn.sinkWhen((s) => s.dead_letters === 1, 'the dead letter after retry_for_s');
    const tries = receiver.requests();
    assert.ok(tries.length >= 2, `retried until retry_for_s ran out (${tries.length} attempts)`);
    assert.ok(tries.at(-1)!.at - tries[0]!.at >= 1000, 'the last attempt is retry_for_s after the append');
    const [letter] = (await hn.api('/sinks/hook/dead-letters')).json.dead_letters;
    assert.equal([letter.attempts, letter.error], [tries.length, 'receiver answered HTTP 503; gave up after 1 s']);

    // Still failing once after the replay: the event is retried, not dead again at once.
    let sinceReplay = 0;
    receiver.respond(() => (++sinceReplay === 1 ? { status: 503 } : { status: 200 }));
    assert.is((await hn.api('/sinks/hook/dead-letters/replay', { method: 'POST', body: { ids: [letter.id] } })).json.replayed, 1);
    const done = await hn.sinkWhen((s) => s.total_delivered === 1, 'the replayed event delivered on its second attempt');
    assert.equal([done.dead_letters, done.pending, sinceReplay], [0, 0, 2]);
    assertWellFormed(receiver.requests(), E2E_NODE_ID);
  } finally {
    await stopAll(hn, receiver, origin);
  }
});

test('batch_size sends a JSON array whose webhook-id is <first event_id>+<n-1>.<digest>', async () => {
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  // Slow answers keep the one connection busy while the next events queue up behind it.
  receiver.respond(() => ({ status: 200, delayMs: 400 }));
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, hook: { url: receiver.url(), batch_size: 5, concurrency: 1 } });
  try {
    const ports = await hn.curlFlows(6, 3);
    await hn.sinkWhen((s) => s.total_delivered === 6, 'six deliveries');
    const batches = receiver.requests().filter((r) => r.body.startsWith('['));
    assert.ok(batches.length >= 1, 'at least one batch');
    for (const b of batches) {
      const envelopes = JSON.parse(b.body) as Record<string, unknown>[];
      assert.ok(envelopes.length >= 2 && envelopes.length <= 5, `batch of ${envelopes.length}`);
    }
    const completed = completedById(receiver.acknowledged());
    assert.equal([...completed.values()].map(sourcePortOf).sort(), [...ports].sort());
    assert.is(receiver.acknowledged().length, 6, 'each event once');
    assertWellFormed(receiver.requests(), E2E_NODE_ID);
  } finally {
    await stopAll(hn, receiver, origin);
  }
});

test.run();
