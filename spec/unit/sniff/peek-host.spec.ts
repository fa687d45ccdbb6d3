import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { peekHost } from '../../../actors/sniff/peek-host.js';
import { captureClientHello } from './client-hello.js';
import { FAR_MS, settlesBeforeFar } from '../../support/far-bound.js';

/** A connected loopback pair: `server` is the accepted side the node would peek at. */
async function pair(): Promise<{ client: net.Socket; server: net.Socket; close(): void }> {
  const listener = net.createServer({ allowHalfOpen: true });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const accepted = new Promise<net.Socket>((resolve) => listener.once('connection', resolve));
  const client = net.connect((listener.address() as net.AddressInfo).port, '127.0.0.1');
  const server = await accepted;
  return {
    client,
    server,
    close: () => {
      client.destroy();
      server.destroy();
      listener.close();
    },
  };
}

function collect(socket: net.Socket): () => Buffer {
  const chunks: Buffer[] = [];
  socket.on('data', (d: Buffer) => chunks.push(d));
  return () => Buffer.concat(chunks);
}

test('reads a ClientHello that arrives in pieces and keeps every byte', async () => {
  const hello = await captureClientHello('pieces.example.test');
  const { client, server, close } = await pair();
  const peeking = peekHost(server, 2000);
  client.write(hello.subarray(0, 7));
  await sleep(30);
  client.write(hello.subarray(7));
  const peeked = await peeking;
  assert.is(peeked.host, 'pieces.example.test');
  assert.ok(peeked.bytes.equals(hello), 'the bytes read are the whole hello');
  close();
});

test('leaves later bytes on the socket for the relay', async () => {
  const { client, server, close } = await pair();
  const peeking = peekHost(server, 2000);
  client.write('GET / HTTP/1.1\r\nHost: later.test\r\n\r\n');
  const peeked = await peeking;
  assert.is(peeked.host, 'later.test');
  client.write('after');
  await sleep(30);
  assert.is(server.isPaused(), true, 'paused until the relay resumes it');
  const rest = collect(server);
  server.resume();
  await sleep(30);
  assert.is(rest().toString(), 'after');
  close();
});

test('gives up after the timeout when the client waits for the server to speak', async () => {
  const { server, close } = await pair();
  const started = Date.now();
  const peeked = await peekHost(server, 150);
  const waited = Date.now() - started;
  assert.equal(peeked, { bytes: Buffer.alloc(0), host: null });
  assert.ok(waited >= 140, `waited ${waited} ms, not less than the timeout`);
  close();
});

test('stops at a first chunk that names no host', async () => {
  const { client, server, close } = await pair();
  // A FAR_MS timeout: only the first chunk can end this peek before WAIT_MS.
  const peeking = peekHost(server, FAR_MS);
  client.write('SSH-2.0-client\r\n');
  const peeked = await settlesBeforeFar(peeking, 'the peek');
  assert.is(peeked.host, null);
  assert.is(peeked.bytes.toString(), 'SSH-2.0-client\r\n');
  close();
});

test('ends when the client half-closes before naming a host', async () => {
  const { client, server, close } = await pair();
  const peeking = peekHost(server, 5000);
  client.end('GET / HTT');
  const peeked = await peeking;
  assert.equal(peeked, { bytes: Buffer.from('GET / HTT'), host: null });
  close();
});

test.run();
