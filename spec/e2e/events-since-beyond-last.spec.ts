import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../streams/contract.js';
import { WAIT_MS } from '../support/far-bound.js';
import { fixture } from '../support/fixture.js';
import { E2E_API_KEY, e2eConfig } from '../support/node-config.js';
import { startNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

// A `since` beyond the last sequence (a consumer whose position came from a run whose
// state dir was lost) resumes from the start of this run on GET /api/v1/events as on
// SSE and WebSocket, with the same replay gap: the README tells a browser WebSocket to
// ask `GET /events?since=<seq>&limit=1` first to learn its gap.

const RING = 4;
const AUTH = { authorization: `Bearer ${E2E_API_KEY}` };

interface Page {
  events: Envelope[];
  oldest_sequence: number;
  last_sequence: number;
  replay_gap: { from_sequence: number; to_sequence: number } | null;
}

const setup = fixture(
  test,
  async () => {
    const config = e2eConfig({ stateDir: tempDir(), inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: 0 }] });
    config['node'] = { ...(config['node'] as object), replay_ring: { max_events: RING } };
    const node = await startNode(config);
    const control = node.controlUrl();
    const get = (path: string): Promise<Response> => fetch(`${control}/api/v1${path}`, { headers: AUTH, signal: AbortSignal.timeout(WAIT_MS) });
    // stats.sampled once a second overruns a ring of RING events.
    await waitFor(async () => {
      const res = await get('/events').catch(() => null);
      return res?.ok && ((await res.json()) as Page).oldest_sequence > 2 ? true : undefined;
    }, WAIT_MS, 'the ring to move past its first events');
    return { node, control, get };
  },
  async ({ node }) => {
    await node.stop();
  },
);

test('GET /events with a since beyond the last sequence answers as the streams do: replay from the run start and its gap', async () => {
  const { control, get } = await setup();
  const sse = await fetch(`${control}/api/v1/events/stream?since=999999999&types=stats.sampled`, { headers: AUTH, signal: AbortSignal.timeout(WAIT_MS) });
  const streamGap = sse.headers.get('weir-replay-gap');
  await sse.body?.cancel();
  assert.ok(streamGap !== null && streamGap.startsWith('1-'), `the SSE stream names the gap from 1: ${streamGap}`);

  const res = await get('/events?since=999999999');
  const page = (await res.json()) as Page;
  assert.ok(page.events.length > 0, 'the events of this run that the ring holds are replayed');
  assert.is(page.events[0]!.sequence, page.oldest_sequence);
  assert.equal(page.replay_gap, { from_sequence: 1, to_sequence: page.oldest_sequence - 1 });
  assert.is(res.headers.get('weir-replay-gap'), `1-${page.oldest_sequence - 1}`);
});

test.run();
