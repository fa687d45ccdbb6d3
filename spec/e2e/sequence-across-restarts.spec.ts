import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SEQUENCE_BLOCK } from '../../actors/files/sequence-reservation.js';
import { WAIT_MS } from '../support/far-bound.js';
import { ofType, readJsonl, waitForEvents } from '../support/jsonl.js';
import { RESTARTABLE_API_KEY, restartableConfig } from '../support/restartable-config.js';
import { startNode } from '../support/start-node.js';
import { waitFor } from '../support/wait-for.js';
import { SseClient } from '../support/event-clients.js';

async function startedSequences(events: string, runs: number): Promise<number[]> {
  const all = await waitForEvents(events, (es) => ofType(es, 'engine.started').length >= runs, WAIT_MS, `engine.started of run ${runs}`);
  return ofType(all, 'engine.started').map((e) => e.sequence);
}

test('sequence goes on across a clean restart, and an SSE client resuming with an old id gets the new run from its start', async () => {
  const { config, control, events } = await restartableConfig();
  const first = await startNode(config);
  await waitForEvents(events, (es) => ofType(es, 'stats.sampled').length >= 2, WAIT_MS, 'two stats samples');
  assert.is(await first.stop(), 0);
  const firstRun = readJsonl(events);
  const last = firstRun.at(-1)!;
  assert.is(last.event_type, 'engine.stopped');

  const second = await startNode(config);
  try {
    assert.equal(await startedSequences(events, 2), [1, last.sequence + 1]);
    // An id the first run gave: the client has seen nothing of this run yet.
    const sse = new SseClient(`${control}/api/v1/events/stream?types=engine.started,stats.sampled`, { key: RESTARTABLE_API_KEY, lastEventId: '2' });
    try {
      await waitFor(() => sse.envelopes.length >= 2, WAIT_MS, 'the replay');
      const [replayed] = sse.envelopes;
      assert.equal([replayed!.event_type, replayed!.sequence], ['engine.started', last.sequence + 1]);
    } finally {
      sse.close();
    }
  } finally {
    assert.is(await second.stop(), 0);
  }
});

test('after a kill -9 the next run starts above everything the killed run could publish', async () => {
  const { config, events } = await restartableConfig();
  const first = await startNode(config);
  const [started] = await startedSequences(events, 1);
  await first.kill9();
  const second = await startNode(config);
  try {
    assert.equal(await startedSequences(events, 2), [started!, started! + SEQUENCE_BLOCK]);
  } finally {
    assert.is(await second.stop(), 0);
  }
});

test.run();
