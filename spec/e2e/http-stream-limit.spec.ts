import type { IncomingMessage } from 'node:http';
import { EventSource } from 'eventsource';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { WAIT_MS } from '../support/far-bound.js';
import { waitFor } from '../support/wait-for.js';
import { SseClient, WsClient } from '../support/event-clients.js';
import { startNode, type TestNode } from '../support/api-node.js';
import { loudBefore } from '../support/loud-before.js';

// Every live subscriber holds a bus subscription, a queue of up to 8 MiB and a socket,
// and the streams took as many as came. They now hold a bounded number, SSE and
// WebSocket together.

const LIMIT = 2;
let node: TestNode;
const open: { close(): void }[] = [];

loudBefore(test, async () => {
  node = await startNode({ streamLimits: { maxSubscribers: LIMIT, heartbeatMs: 100 } });
});
test.after.each(() => {
  for (const client of open.splice(0)) client.close();
});
test.after(async () => {
  await node.stop();
});

const full = {
  type: 'urn:weir:problem:too-many-subscribers',
  title: 'Too many live subscribers',
  status: 503,
  detail: `the live streams hold ${LIMIT} subscribers, their most; try again when one ends`,
  code: 'TOO_MANY_SUBSCRIBERS',
};

async function sse(): Promise<SseClient> {
  const client = new SseClient(`${node.baseUrl}/api/v1/events/stream?types=engine.warning`, { key: node.apiKey });
  open.push(client);
  await waitFor(() => client.readyState === EventSource.OPEN, WAIT_MS, 'SSE subscriber open');
  return client;
}

async function ws(): Promise<WsClient> {
  const client = new WsClient(`${node.wsUrl}/api/v1/events/ws?types=engine.warning`, { key: node.apiKey });
  open.push(client);
  await waitFor(() => client.ws.readyState === WebSocket.OPEN, WAIT_MS, 'WebSocket subscriber open');
  return client;
}

/** A real WebSocket client's upgrade that the node answers with an HTTP response instead of 101. */
async function refusedUpgrade(key = node.apiKey): Promise<{ status: number | undefined; headers: IncomingMessage['headers']; body: unknown }> {
  const client = new WebSocket(`${node.wsUrl}/api/v1/events/ws`, { headers: { authorization: `Bearer ${key}` } });
  client.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    client.once('open', () => {
      client.close();
      reject(new Error('the upgrade was accepted'));
    });
    client.once('unexpected-response', (_req, res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.once('end', () => {
        client.terminate();
        resolve({ status: res.statusCode, headers: res.headers, body: JSON.parse(text) });
      });
    });
  });
}

/** The next SSE and WebSocket subscribers are refused with 503 TOO_MANY_SUBSCRIBERS and Retry-After, by a real EventSource too. */
async function assertRefused(): Promise<void> {
  const res = await fetch(`${node.baseUrl}/api/v1/events/stream`, { headers: { authorization: `Bearer ${node.apiKey}` } });
  // An accepted stream never ends: reading its body would wait forever.
  if (res.status !== 503) await res.body?.cancel();
  assert.is(res.status, 503);
  assert.is(res.headers.get('content-type'), 'application/problem+json; charset=utf-8');
  assert.is(res.headers.get('retry-after'), '5');
  assert.equal(await res.json(), full);

  const upgrade = await refusedUpgrade();
  assert.is(upgrade.status, 503);
  assert.is(upgrade.headers['content-type'], 'application/problem+json');
  assert.is(upgrade.headers['retry-after'], '5');
  assert.equal(upgrade.body, full);

  const es = new SseClient(`${node.baseUrl}/api/v1/events/stream`, { key: node.apiKey });
  open.push(es);
  await waitFor(() => es.errors.length > 0, WAIT_MS, 'the EventSource refused');
  assert.is(es.errors[0]!.code, 503);
  assert.is(es.readyState, EventSource.CLOSED);
}

async function fullWarnings(): Promise<number> {
  return (await node.logText()).split('\n').filter((line) => line.includes('live streams full')).length;
}

/** Waits until a place is free: a HEAD takes one and gives it back at once, and is refused like a GET while none is. */
async function placeFreed(): Promise<void> {
  await waitFor(async () => (await node.api('/api/v1/events/stream', { method: 'HEAD' })).status === 200, WAIT_MS, 'a place freed');
}

function publishWarning(): void {
  node.engine.bus.publish({ event_type: 'engine.warning', payload: { code: 'spec_limit', message: 'live' } });
}

// One test: places freed by one test's closed clients would race the next test's subscribers.
test('over the limit SSE and WebSocket get 503 TOO_MANY_SUBSCRIBERS with Retry-After; bad keys take no place; one that ends frees its place', async () => {
  for (let i = 0; i < LIMIT + 1; i++) {
    assert.is((await node.api('/api/v1/events/stream', { key: 'wrong' })).status, 401);
    assert.is((await refusedUpgrade('wrong')).status, 401);
  }
  const sseHeld = await sse();
  const wsHeld = await ws();
  await assertRefused();
  await assertRefused();
  // The key is checked first: a wrong one is told so, never that the streams are full.
  assert.is((await node.api('/api/v1/events/stream', { key: 'wrong' })).status, 401);
  const upgrade = await refusedUpgrade('wrong');
  assert.is(upgrade.status, 401);
  assert.is(upgrade.headers['retry-after'], undefined);

  sseHeld.close();
  await placeFreed();
  const sseAgain = await sse();
  publishWarning();
  await waitFor(() => sseAgain.frames.length >= 1, WAIT_MS, 'an event at the new SSE subscriber');
  await assertRefused();

  wsHeld.close();
  await placeFreed();
  const wsAgain = await ws();
  publishWarning();
  await waitFor(() => wsAgain.envelopes.length >= 1, WAIT_MS, 'an event at the new WebSocket subscriber');

  await waitFor(async () => (await fullWarnings()) >= 2, WAIT_MS, 'the warnings in the log');
  assert.is(await fullWarnings(), 2, 'one warning each time every place was held, not one per refused subscriber');
  const errors = (await node.logText()).split('\n').filter((line) => line.includes('"level":50'));
  assert.equal(errors, [], 'a refusal is no fault of the node: no error line per refused request');
});

test.run();
