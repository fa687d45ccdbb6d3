import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { webhookIdOf } from '../../actors/webhook/batch-id.js';
import { startAckReceiver } from './sink-receiver.js';

async function post(url: string, webhookId: string, body = '{}'): Promise<number> {
  const res = await fetch(url, { method: 'POST', headers: { 'webhook-id': webhookId }, body });
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

test('byEventId tallies every event_id of single and batched bodies, a redelivery twice', async () => {
  const receiver = await startAckReceiver({ byEventId: true });
  try {
    assert.is(receiver.tally().firstNewAt, null);
    assert.is(await post(receiver.url, 'e-1', JSON.stringify({ event_id: 'e-1' })), 204);
    const batch = JSON.stringify([{ event_id: 'e-1' }, { event_id: 'e-2' }, { event_id: 'e-3' }]);
    assert.is(await post(receiver.url, webhookIdOf(['e-1', 'e-2', 'e-3']), batch), 204);
    const { deliveries, firstNewAt, lastNewAt } = receiver.tally();
    assert.equal([...deliveries.entries()], [['e-1', 2], ['e-2', 1], ['e-3', 1]]);
    assert.type(firstNewAt, 'number');
    assert.ok((lastNewAt as number) >= (firstNewAt as number));
  } finally {
    await receiver.close();
  }
});

test('without byEventId the tally stays empty', async () => {
  const receiver = await startAckReceiver();
  try {
    assert.is(await post(receiver.url, 'e-1', JSON.stringify({ event_id: 'e-1' })), 204);
    assert.is(receiver.tally().deliveries.size, 0);
    assert.is(receiver.counted(), 1);
  } finally {
    await receiver.close();
  }
});

test.run();
