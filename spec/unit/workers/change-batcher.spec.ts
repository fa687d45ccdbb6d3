import { setImmediate as nextTurn } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { zeroUdpStats } from '../../../actors/flows/flow-stats.js';
import { ChangeBatcher } from '../../../actors/workers/change-batcher.js';
import type { WorkerMessage } from '../../../actors/workers/worker-messages.js';
import { change } from '../flows/fixtures.js';

function batcher(): { out: ChangeBatcher; sent: WorkerMessage[] } {
  const sent: WorkerMessage[] = [];
  return { out: new ChangeBatcher((m) => void sent.push(m)), sent };
}

test('the changes and events of one event-loop turn go to the hub as one message, in order', async () => {
  const { out, sent } = batcher();
  out.change(change('started', 'f-1', 1));
  out.change(change('routed', 'f-1', 2));
  out.event({ event_type: 'engine.warning', payload: { code: 'ipc_hook_unreachable', message: 'm' }, writePayload: () => '' });
  assert.is(sent.length, 0);
  await nextTurn();
  assert.is(sent.length, 1);
  const [batch] = sent;
  assert.equal(batch?.t === 'batch' && [batch.changes.map((c) => c.kind), batch.events], [
    ['started', 'routed'],
    [{ event_type: 'engine.warning', payload: { code: 'ipc_hook_unreachable', message: 'm' }, occurred_at_unix_ms: undefined, principal_key: undefined }],
  ]);
});

test('a full batch of 256 changes is sent at once, the rest with the turn', async () => {
  const { out, sent } = batcher();
  for (let i = 0; i < 300; i++) out.change(change('started', `f-${i}`, 1));
  assert.equal(sent.map((m) => (m.t === 'batch' ? m.changes.length : -1)), [256]);
  await nextTurn();
  assert.equal(sent.map((m) => (m.t === 'batch' ? m.changes.length : -1)), [256, 44]);
});

test('the UDP counters go with the next batch as of when they were given, and nothing is sent for an empty turn', async () => {
  const { out, sent } = batcher();
  const udp = zeroUdpStats();
  udp.packets_sent = 3;
  out.counters(udp);
  udp.packets_sent = 4;
  await nextTurn();
  await nextTurn();
  assert.equal(sent.map((m) => m.t === 'batch' && m.udp?.packets_sent), [3]);
});

test.run();
