import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { curl } from '../support/curl.js';
import { ofType, readJsonl } from '../support/jsonl.js';
import { E2E_NODE_ID } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { assertWellFormed } from '../support/webhook-expect.js';
import { HOOK_TOKEN, startHookNode, stopAll } from '../support/webhook-node.js';

const TUNNELS = 3;

test('a SIGTERM with tunnels open loses nothing: their flow.completed and engine.stopped reach the Webhook outbox and arrive after the restart', async () => {
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, hook: { url: receiver.url(), events: ['flow.completed', 'engine.stopped'] } });
  try {
    const socks = `127.0.0.1:${hn.node.ports['socks-in']}`;
    // Never-ending answers: the flows are still open when the node stops, and complete in its shutdown.
    const tunnels = Array.from({ length: TUNNELS }, (_, i) => curl(['--socks5-hostname', socks, '-o', '/dev/null', origin.url(`/silent?n=${i}`)], 30_000));
    await waitFor(() => origin.connections().filter((c) => !c.closed).length === TUNNELS, 10_000, 'every tunnel open at the origin');
    assert.is(await hn.node.stop(), 0);
    await Promise.all(tunnels);

    // The JSONL sink of every event says what the Webhook sink was due.
    const archived = readJsonl(hn.events);
    const due = [...ofType(archived, 'flow.completed'), ...ofType(archived, 'engine.stopped')].map((e) => e.event_id);
    assert.is(due.length, TUNNELS + 1, 'three flow.completed and engine.stopped in the JSONL sink');

    await hn.restart();
    await waitFor(
      () => {
        const got = new Set(receiver.acknowledged().map((e) => String(e['event_id'])));
        return due.every((id) => got.has(id));
      },
      15_000,
      'every flow.completed of the shutdown and its engine.stopped at the receiver',
    );
    const state = await hn.sinkWhen((s) => s.pending === 0, 'nothing pending');
    assert.is(state.replay_gaps, 0);
    assertWellFormed(receiver.requests(), E2E_NODE_ID);
  } finally {
    await stopAll(hn, receiver, origin);
  }
});

test.run();
