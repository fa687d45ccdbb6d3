import net from 'node:net';
import { once } from 'node:events';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tunnelTraffic } from '../../../actors/flows/socket-meter.js';

/** Two connected loopback sockets, and the far ends that read what they write. */
async function pair(): Promise<{ near: net.Socket; far: net.Socket; close(): void }> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const near = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  const [far] = (await once(server, 'connection')) as [net.Socket];
  far.resume();
  return { near, far, close: () => (near.destroy(), far.destroy(), server.close()) };
}

async function written(s: net.Socket, bytes: number): Promise<void> {
  await new Promise<void>((resolve) => s.write(Buffer.alloc(bytes), () => resolve()));
}

test('a tunnel’s counters are what each side was handed, and stay as read at the cut', async () => {
  const [client, remote] = [await pair(), await pair()];
  try {
    // The answer that opened the tunnel is no payload.
    await written(client.near, 10);
    const traffic = tunnelTraffic(client.near, remote.near, { rx: 0, tx: 3 });
    await written(client.near, 100);
    await written(remote.near, 40);
    traffic.freeze();
    await written(client.near, 50);
    await written(remote.near, 50);
    const t = traffic.read();
    assert.equal([t.bytes_down, t.bytes_up, t.inbound_tx_bytes, t.outbound_tx_bytes], [100, 37, 110, 40]);
  } finally {
    client.close();
    remote.close();
  }
});

test.run();
