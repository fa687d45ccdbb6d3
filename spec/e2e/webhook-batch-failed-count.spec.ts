import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { E2E_NODE_ID } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { assertWellFormed } from '../support/webhook-expect.js';
import { HOOK_TOKEN, startHookNode, stopAll } from '../support/webhook-node.js';

/**
 * `total_failed` counts envelopes, as `total_delivered` does: one per envelope of each
 * failed request (docs/webhook-delivery.md, "Connector state"). Two failed requests, one
 * of them a batch, count every envelope they carried.
 */
test('a failed batch request counts each of its envelopes in total_failed', async () => {
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  // The first request is held while the next flows queue behind it (concurrency 1), so
  // the second request is a batch; the first two requests fail, the rest succeed.
  receiver.respond((_req, _attempt) => {
    const n = receiver.requests().length;
    if (n === 1) return { status: 500, delayMs: 1500 };
    if (n === 2) return { status: 500 };
    return { status: 200 };
  });
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, hook: { url: receiver.url(), batch_size: 10, concurrency: 1 } });
  try {
    await hn.curlFlows(6, 3);
    const done = await hn.sinkWhen((s) => s.total_delivered === 6 && s.pending === 0, 'all six delivered', { timeoutMs: 20_000 });
    const requests = receiver.requests();
    const failed = requests.filter((r) => r.status !== null && (r.status < 200 || r.status >= 300));
    assert.is(failed.length, 2, 'two requests failed');
    assert.ok(failed.some((r) => r.body.startsWith('[')), 'a failed request was a batch');
    const envelopes = failed.reduce((n, r) => n + (r.body.startsWith('[') ? (JSON.parse(r.body) as unknown[]).length : 1), 0);
    assert.ok(envelopes > failed.length, 'a failed request carried several envelopes');
    assert.is(done.total_failed, envelopes, `total_failed ${done.total_failed} for ${envelopes} envelopes in ${failed.length} failed requests`);
    assertWellFormed(requests, E2E_NODE_ID);
  } finally {
    await stopAll(hn, receiver, origin);
  }
});

test.run();
