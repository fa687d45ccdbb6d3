import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../streams/contract.js';
import { curl } from '../support/curl.js';
import { WAIT_MS } from '../support/far-bound.js';
import { fixture } from '../support/fixture.js';
import { ofType, readJsonl, waitForEvents } from '../support/jsonl.js';
import { E2E_API_KEY, e2eConfig, eventsPath } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { SseClient, WsClient } from '../support/event-clients.js';

/** The node's replay ring: six flows of three events or more overrun it several times. */
const RING = 8;
const FLOWS = 6;
const AUTH = { authorization: `Bearer ${E2E_API_KEY}` };

const setup = fixture(
  test,
  async () => {
    const origin = await startOrigin();
    const stateDir = tempDir();
    const config = e2eConfig({ stateDir, inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: 0 }] });
    config['node'] = { ...(config['node'] as object), replay_ring: { max_events: RING } };
    const node = await startNode(config);
    const control = node.controlUrl();
    const events = eventsPath(stateDir);
    const api = (path: string): Promise<Response> => fetch(`${control}/api/v1${path}`, { headers: AUTH, signal: AbortSignal.timeout(WAIT_MS) });
    // A consumer's position before the traffic: what it resumes from once the ring has moved on.
    const since = await waitFor(async () => {
      const res = await api('/events').catch(() => null);
      return res?.ok ? ((await res.json()) as { last_sequence: number }).last_sequence : undefined;
    }, WAIT_MS, 'the control plane');
    const socks = `127.0.0.1:${node.ports['socks-in']}`;
    for (let i = 0; i < FLOWS; i++) assert.is((await curl(['--socks5-hostname', socks, origin.url(`/bytes/10?n=${i}`)])).code, 0);
    await waitForEvents(events, (es) => ofType(es, 'flow.completed').length === FLOWS, WAIT_MS, 'every flow.completed archived');
    return { origin, node, control, events, since, api };
  },
  async ({ origin, node }) => {
    await node.stop();
    await origin.close();
  },
);

interface Block {
  comment?: string;
  id?: string;
  event?: string;
  data?: string;
}

/** An SSE body cut into its blocks: comment lines, or frames of `field: value` lines. */
function blocksOf(text: string): Block[] {
  return text
    .split('\n\n')
    .filter((block) => block !== '')
    .map((block) => Object.fromEntries(block.split('\n').map(fieldOf)) as Block);
}

function fieldOf(line: string): [string, string] {
  if (line.startsWith(':')) return ['comment', line.slice(2)];
  const colon = line.indexOf(': ');
  return [line.slice(0, colon), line.slice(colon + 2)];
}

/** The stream as a raw reader (curl, a controller) sees it, read up to its flow.snapshot frame. */
async function rawStream(control: string, query: string, headers: Record<string, string> = {}): Promise<{ gap: string | null; blocks: Block[] }> {
  const res = await fetch(`${control}/api/v1/events/stream${query}`, { headers: { ...AUTH, ...headers }, signal: AbortSignal.timeout(WAIT_MS) });
  assert.is(res.status, 200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const snapshotFrame = /event: flow\.snapshot\ndata: [^\n]*\n\n/;
  let text = '';
  let snapshot: RegExpExecArray | null = null;
  while (!(snapshot = snapshotFrame.exec(text))) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  // A live event (stats.sampled) may come in the same chunk right after the snapshot: the
  // blocks end with the snapshot's frame.
  const upToSnapshot = snapshot ? text.slice(0, snapshot.index + snapshot[0].length) : text;
  return { gap: res.headers.get('weir-replay-gap'), blocks: blocksOf(upToSnapshot) };
}

const sequencesFrom = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

test('SSE: a since older than the ring gets the gap as a header and a comment before the replay', async () => {
  const { control, since } = await setup();
  const { gap, blocks } = await rawStream(control, `?since=${since}`);
  const [comment, ...frames] = blocks;
  const snapshot = frames.at(-1)!;
  assert.is(snapshot.event, 'flow.snapshot');
  // The ring holds the RING events up to the watermark, read in the same tick as the gap.
  const watermark = Number(snapshot.id);
  const to = watermark - RING;
  assert.ok(to > since, `the ring moved past ${since}`);
  assert.is(gap, `${since + 1}-${to}`);
  assert.equal(comment, { comment: `replay_gap from_sequence=${since + 1} to_sequence=${to}` });
  assert.equal(frames.slice(0, -1).map((f) => Number(f.id)), sequencesFrom(to + 1, watermark));
  assert.ok(frames.every((f) => f.comment === undefined && f.data !== undefined), 'every other block is an envelope frame');
});

test('SSE with a type filter: the gap holds flow.completed the consumer could not have counted', async () => {
  const { control, since, events } = await setup();
  const { gap, blocks } = await rawStream(control, '?types=flow.completed', { 'last-event-id': String(since) });
  const watermark = Number(blocks.at(-1)!.id);
  const to = watermark - RING;
  assert.is(gap, `${since + 1}-${to}`);
  assert.equal(blocks[0], { comment: `replay_gap from_sequence=${since + 1} to_sequence=${to}` });
  const completed = ofType(readJsonl(events), 'flow.completed').map((e) => e.sequence).filter((s) => s > since && s <= watermark);
  assert.ok(completed.some((s) => s <= to), 'flow.completed fell into the gap');
  assert.equal(blocks.slice(1, -1).map((f) => Number(f.id)), completed.filter((s) => s > to), 'the replay is the rest of them');
});

test('SSE: an EventSource gets the gap header, skips the comment and gets the replay as frames', async () => {
  const { control, since } = await setup();
  const es = new SseClient(`${control}/api/v1/events/stream?since=${since}`, { key: E2E_API_KEY });
  try {
    await waitFor(() => es.frames.some((f) => f.event === 'flow.snapshot'), WAIT_MS, 'the snapshot');
    const watermark = Number(es.frames.find((f) => f.event === 'flow.snapshot')!.id);
    assert.is(es.responseHeaders?.get('weir-replay-gap'), `${since + 1}-${watermark - RING}`);
    const replayed = es.envelopes.slice(0, es.envelopes.findIndex((e) => e.event_type === 'flow.snapshot'));
    assert.equal(replayed.map((e) => e.sequence), sequencesFrom(watermark - RING + 1, watermark));
    assert.equal(es.errors, []);
  } finally {
    es.close();
  }
});

test('SSE: a since beyond the last sequence resumes from the start of the run, and the gap says what that lost', async () => {
  const { control } = await setup();
  const { gap, blocks } = await rawStream(control, '?since=999999999');
  const watermark = Number(blocks.at(-1)!.id);
  assert.is(gap, `1-${watermark - RING}`);
  assert.equal(blocks.slice(1, -1).map((f) => Number(f.id)), sequencesFrom(watermark - RING + 1, watermark));
});

test('WebSocket: a since older than the ring gets the gap as a header of the 101, and only envelopes', async () => {
  const { control, since } = await setup();
  const ws = new WsClient(`${control.replace('http:', 'ws:')}/api/v1/events/ws?since=${since}`, { key: E2E_API_KEY });
  try {
    await waitFor(() => ws.envelopes.some((e) => e.event_type === 'flow.snapshot'), WAIT_MS, 'the snapshot');
    const snapshotAt = ws.envelopes.findIndex((e) => e.event_type === 'flow.snapshot');
    const watermark = ws.envelopes[snapshotAt]!.sequence;
    assert.is(ws.upgradeHeaders?.['weir-replay-gap'], `${since + 1}-${watermark - RING}`);
    assert.equal(ws.envelopes.slice(0, snapshotAt).map((e) => e.sequence), sequencesFrom(watermark - RING + 1, watermark));
  } finally {
    ws.close();
  }
});

test('GET /api/v1/events: a since older than the ring gets the gap as a header and as replay_gap', async () => {
  const { since, api } = await setup();
  for (const query of [`?since=${since}`, `?since=${since}&types=flow.completed`]) {
    const res = await api(`/events${query}`);
    const body = (await res.json()) as { events: Envelope[]; oldest_sequence: number; last_sequence: number; replay_gap: unknown };
    const to = body.last_sequence - RING;
    assert.is(res.headers.get('weir-replay-gap'), `${since + 1}-${to}`, query);
    assert.equal(body.replay_gap, { from_sequence: since + 1, to_sequence: to }, query);
    assert.is(body.oldest_sequence, to + 1, query);
  }
  // Without since it is a listing of the ring, not a resume: nothing was asked for that it lost.
  const listing = await api('/events');
  assert.is(listing.headers.get('weir-replay-gap'), null);
  assert.is(((await listing.json()) as { replay_gap: unknown }).replay_gap, null);
});

test('a since the ring still holds the events after gets no gap on SSE, WebSocket or GET', async () => {
  const { control, api } = await setup();
  const { last_sequence: last } = (await (await api('/events')).json()) as { last_sequence: number };
  const inside = last - 2;

  const sse = await rawStream(control, `?since=${inside}`);
  assert.is(sse.gap, null);
  assert.is(sse.blocks[0]!.comment, undefined, 'no comment');
  assert.is(Number(sse.blocks[0]!.id), inside + 1, 'the replay begins right after since');

  const ws = new WsClient(`${control.replace('http:', 'ws:')}/api/v1/events/ws?since=${inside}`, { key: E2E_API_KEY });
  try {
    await waitFor(() => ws.envelopes.length > 0, WAIT_MS, 'the replay');
    assert.ok(ws.upgradeHeaders !== null, 'upgraded');
    assert.is(ws.upgradeHeaders!['weir-replay-gap'], undefined);
    assert.is(ws.envelopes[0]!.sequence, inside + 1);
  } finally {
    ws.close();
  }

  const res = await api(`/events?since=${inside}`);
  assert.is(res.headers.get('weir-replay-gap'), null);
  assert.is(((await res.json()) as { replay_gap: unknown }).replay_gap, null);
});

test.run();
