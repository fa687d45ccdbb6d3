import { createHash } from 'node:crypto';
import net from 'node:net';
import { once } from 'node:events';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { forward } from '../../../actors/flows/forward.js';
import { serve, type Loopback } from '../outbounds/loopback.js';

/** A connected loopback pair: the client end and the server's accepted end. */
async function pair(): Promise<{ client: net.Socket; server: net.Socket; loop: Loopback }> {
  let accepted!: (s: net.Socket) => void;
  const arrived = new Promise<net.Socket>((resolve) => (accepted = resolve));
  const loop = await serve((s) => accepted(s));
  const client = net.connect({ host: '127.0.0.1', port: loop.port, allowHalfOpen: true });
  client.on('error', () => client.destroy());
  await once(client, 'connect');
  return { client, server: await arrived, loop };
}

const sha = (chunks: Buffer[]): string => createHash('sha256').update(Buffer.concat(chunks)).digest('hex');

test('copies every byte in order, pausing the source while the destination is full, then passes the end on', async () => {
  const a = await pair();
  const b = await pair();
  try {
    const relayed = { chunks: 0 };
    let read = 0;
    a.server.on('data', () => read++);
    forward(a.server, b.client, relayed);
    let paused = 0;
    a.server.on('pause', () => paused++);
    const sent: Buffer[] = [];
    for (let i = 0; i < 256; i++) sent.push(Buffer.alloc(32 * 1024, i));
    // The reader starts late, so the kernel buffers fill and write() says to wait.
    b.server.pause();
    for (const chunk of sent) a.client.write(chunk);
    a.client.end();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const received: Buffer[] = [];
    b.server.on('data', (chunk: Buffer) => received.push(chunk));
    b.server.resume();
    await once(b.server, 'end');
    assert.ok(paused > 0, 'the source was never paused');
    assert.is(Buffer.concat(received).length, 256 * 32 * 1024);
    assert.is(sha(received), sha(sent));
    assert.is(relayed.chunks, read, 'each chunk forwarded is counted');
  } finally {
    await Promise.all([a.loop.close(), b.loop.close()]);
    a.client.destroy();
    b.client.destroy();
  }
});

test('after the end is passed on, the other direction still carries bytes (half-close)', async () => {
  const a = await pair();
  const b = await pair();
  try {
    const relayed = { chunks: 0 };
    forward(a.server, b.client, relayed);
    forward(b.client, a.server, relayed);
    a.client.end('last words');
    const heard: Buffer[] = [];
    b.server.on('data', (chunk: Buffer) => heard.push(chunk));
    await once(b.server, 'end');
    assert.is(Buffer.concat(heard).toString(), 'last words');
    const answer: Buffer[] = [];
    a.client.on('data', (chunk: Buffer) => answer.push(chunk));
    b.server.end('the answer');
    await once(a.client, 'end');
    assert.is(Buffer.concat(answer).toString(), 'the answer');
    assert.is(relayed.chunks, 2, 'one chunk each way, counted together');
  } finally {
    await Promise.all([a.loop.close(), b.loop.close()]);
    a.client.destroy();
    b.client.destroy();
  }
});

test.run();
