import http from 'node:http';
import type net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { postWebhook } from '../../../actors/webhook/webhook-post.js';
import { waitFor } from '../../support/wait-for.js';

const ENTRY = [{ id: 'ep-1', body: '{"event_id":"ep-1"}' }];

/** A loopback receiver answering each request with `answer`; counts the connections it saw close. */
async function receiver(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  let closed = 0;
  const server = http.createServer(answer);
  server.on('connection', (socket) => socket.on('close', () => closed++));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`,
    closed: () => closed,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

test('an attempt without an answer within timeout_ms is retried as "receiver did not answer in time"', async () => {
  const r = await receiver((req) => req.resume());
  try {
    const verdict = await postWebhook({ url: r.url, token: 't', timeoutMs: 200 }, ENTRY);
    assert.equal(verdict, { kind: 'retry', error: 'receiver did not answer in time', retryAfterMs: null });
  } finally {
    await r.close();
  }
});

test('a 2xx counts at once though its body trickles on; the trickle is cut at timeout_ms', async () => {
  const timers: NodeJS.Timeout[] = [];
  const r = await receiver((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/plain' });
    timers.push(setInterval(() => res.write('.'), 20));
  });
  try {
    assert.equal(await postWebhook({ url: r.url, token: 't', timeoutMs: 300 }, ENTRY), { kind: 'ack' });
    await waitFor(() => r.closed() === 1, 5000, 'the node closing the trickling connection');
  } finally {
    for (const t of timers) clearInterval(t);
    await r.close();
  }
});

test("a 503's Retry-After is honoured", async () => {
  const r = await receiver((req, res) => {
    req.resume();
    res.writeHead(503, { 'Retry-After': '7' }).end();
  });
  try {
    const verdict = await postWebhook({ url: r.url, token: 't', timeoutMs: 2000 }, ENTRY);
    assert.equal(verdict, { kind: 'retry', error: 'receiver answered HTTP 503', retryAfterMs: 7000 });
  } finally {
    await r.close();
  }
});

test.run();
