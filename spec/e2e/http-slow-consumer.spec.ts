import http from 'node:http';
import { EventSource } from 'eventsource';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import type { Envelope } from '../../streams/contract.js';
import { WAIT_MS } from '../support/far-bound.js';
import { waitFor } from '../support/wait-for.js';
import { startNode, type TestNode } from '../support/api-node.js';
import { loudBefore } from '../support/loud-before.js';

const EVENTS = 100_000;
const BOUND = 1024 * 1024;
const PAD = 'p'.repeat(200);
let node: TestNode;

loudBefore(test, async () => {
  node = await startNode({ streamLimits: { bufferBytes: BOUND } });
});
test.after(async () => {
  await node.stop();
});

/**
 * Publishes EVENTS engine.warning events straight into the bus (in-process), never
 * more than 2000 ahead of the reading client, so only the stalled one falls behind.
 */
async function publishAll(received: () => number): Promise<void> {
  for (let i = 0; i < EVENTS; i++) {
    node.engine.bus.publish({ event_type: 'engine.warning', payload: { code: 'spec_load', message: `${i}:${PAD}` } });
    if (i % 500 === 499) await waitFor(() => received() >= i - 1500, WAIT_MS, 'the reading client', 10);
  }
}

/** The counter in a spec_load warning; the reader checks it arrives in order. */
function counter(e: Envelope): number {
  return Number((e.payload as { message: string }).message.split(':')[0]);
}

test('an SSE client that stops reading is cut off with SLOW_CONSUMER; another gets every event', async () => {
  const url = `${node.baseUrl}/api/v1/events/stream?types=engine.warning`;
  const stalled = await new Promise<http.IncomingMessage>((resolve) => {
    http.get(url, { headers: { authorization: `Bearer ${node.apiKey}` } }, (res) => {
      res.pause();
      resolve(res);
    });
  });
  let next = 0;
  let outOfOrder = 0;
  const reader = new EventSource(url, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...init.headers, authorization: `Bearer ${node.apiKey}` } }),
  });
  reader.addEventListener('engine.warning', (e) => {
    if (counter(JSON.parse(e.data) as Envelope) !== next) outOfOrder++;
    next++;
  });
  await waitFor(() => reader.readyState === EventSource.OPEN, WAIT_MS, 'reader open', 10);

  await publishAll(() => next);
  await waitFor(() => next === EVENTS, WAIT_MS, 'every event at the reader', 10);
  reader.close();
  assert.is(outOfOrder, 0);

  stalled.setEncoding('utf8');
  let text = '';
  stalled.on('data', (chunk: string) => (text += chunk));
  stalled.resume();
  await new Promise((resolve) => stalled.once('end', resolve));
  const frames = text.split('\n\n').filter((f) => f !== '');
  const last = frames.at(-1)!;
  const ids = frames.slice(0, -1).map((f) => Number(/^id: (\d+)$/m.exec(f)![1]));
  assert.is(last, `event: error\ndata: {"code":"SLOW_CONSUMER","resume_from":${ids.at(-1)}}`);
  assert.ok(ids.length < EVENTS / 2, `cut off after ${ids.length} events`);
  assert.ok(text.length < 40 * BOUND, `${text.length} characters reached the stalled client`);
  // What was queued for it at the cut is counted as dropped.
  const dropped = /^weir_live_messages_dropped_total\{kind="sse"\} (\d+)$/m.exec((await node.api('/metrics')).text);
  assert.ok(Number(dropped?.[1]) > 0, `dropped: ${dropped?.[0]}`);
});

test('a WebSocket client that stops reading is closed with 4008 and where to resume; another gets every event', async () => {
  const url = `${node.wsUrl}/api/v1/events/ws?types=engine.warning`;
  const headers = { authorization: `Bearer ${node.apiKey}` };
  const stalled = new WebSocket(url, { headers });
  const stalledSeqs: number[] = [];
  stalled.on('message', (data) => stalledSeqs.push((JSON.parse(String(data)) as Envelope).sequence));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    stalled.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  await new Promise((resolve) => stalled.once('open', resolve));
  stalled.pause();

  let next = 0;
  let outOfOrder = 0;
  const reader = new WebSocket(url, { headers });
  reader.on('message', (data) => {
    if (counter(JSON.parse(String(data)) as Envelope) !== next) outOfOrder++;
    next++;
  });
  await new Promise((resolve) => reader.once('open', resolve));

  await publishAll(() => next);
  await waitFor(() => next === EVENTS, WAIT_MS, 'every event at the reader', 10);
  reader.close();
  assert.is(outOfOrder, 0);

  stalled.resume();
  const { code, reason } = await closed;
  assert.is(code, 4008);
  assert.is(reason, `slow consumer; resume with since=${stalledSeqs.at(-1)}`);
  assert.ok(stalledSeqs.length < EVENTS / 2, `cut off after ${stalledSeqs.length} events`);
});

test.run();
