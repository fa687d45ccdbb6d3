import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { webhookIdOf } from '../../actors/webhook/batch-id.js';
import { startAckReceiver } from './sink-receiver.js';

async function post(url: string, webhookId: string): Promise<number> {
  const res = await fetch(url, { method: 'POST', headers: { 'webhook-id': webhookId }, body: '{}' });
  return res.status;
}

test('counts a batch by its webhook-id and a retried id once, answering 204 to all', async () => {
  const receiver = await startAckReceiver();
  try {
    const reached = receiver.expect(5, 5000);
    assert.is(await post(receiver.url, 'e-1'), 204);
    assert.is(await post(receiver.url, 'e-1'), 204);
    assert.is(receiver.counted(), 1);
    // The id the Webhook sink gives a batch, so the bench cannot drift from it.
    assert.is(await post(receiver.url, webhookIdOf(['e-2', 'e-3', 'e-4', 'e-5'])), 204);
    assert.is(receiver.counted(), 5);
    assert.type(await reached, 'number');
  } finally {
    await receiver.close();
  }
});

test('expect resolves null when the events do not all arrive in time, and counts anew', async () => {
  const receiver = await startAckReceiver();
  try {
    await post(receiver.url, 'e-1');
    const reached = receiver.expect(2, 50);
    assert.is(receiver.counted(), 0);
    await post(receiver.url, 'e-1');
    assert.is(await reached, null);
    assert.is(receiver.counted(), 1);
  } finally {
    await receiver.close();
  }
});

test.run();
