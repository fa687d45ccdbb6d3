import net from 'node:net';
import { once } from 'node:events';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../../support/free-port.js';
import { RawConnectError, rawExchange } from '../../support/raw-client.js';
import { rejectionOf } from '../../support/rejection.js';

/** A loopback server that hands each connection to `onConnection`; `close` ends it. */
async function serve(onConnection: (socket: net.Socket) => void): Promise<{ port: number; close(): Promise<void> }> {
  const open = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    onConnection(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => {
      for (const s of open) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

test('rejects when the port refuses the connection, rather than reading it as closed', async () => {
  const err = await rejectionOf(rawExchange(await freePort(), [1, 2, 3]));
  assert.instance(err, RawConnectError);
});

test('resolves closed with what the server sent when it accepts, answers and closes', async () => {
  const server = await serve((socket) => socket.once('data', (d: Buffer) => socket.end(Buffer.concat([Buffer.from('got '), d]))));
  const res = await rawExchange(server.port, Buffer.from('hi'));
  assert.equal(res, { data: Buffer.from('got hi'), closed: true });
  await server.close();
});

test('resolves not closed when the server accepts and keeps the connection open past the wait', async () => {
  const server = await serve(() => undefined);
  const res = await rawExchange(server.port, [1], { timeoutMs: 50 });
  assert.equal(res, { data: Buffer.alloc(0), closed: false });
  await server.close();
});

test.run();
