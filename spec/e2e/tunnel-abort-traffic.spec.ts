import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { recordOf } from '../support/flow-expect.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { proxyFixture } from '../support/proxy-fixture.js';

/**
 * A download the client stops reading and then resets: the node has read a chunk from
 * the remote that it never passes on (the remote is paused with it buffered) and may
 * have a write to the client under way. bytes_down counts what was handed on to the
 * client, so a billed download is never more than what was relayed.
 */
const HTTP = { tag: 'http-in', protocol: 'http' };
const ESTABLISHED = 'HTTP/1.1 200 Connection Established\r\n\r\n';

const setup = proxyFixture(test, { inbounds: [{ type: 'http', tag: HTTP.tag }] });

/** An origin that streams to every connection as fast as it can, until it closes. */
async function streamingOrigin(): Promise<{ port: number; close(): void }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => s.destroy());
    const big = Buffer.alloc(256 * 1024, 'b');
    const pump = (): void => {
      while (!s.destroyed) if (!s.write(big)) return void s.once('drain', pump);
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return { port: (server.address() as net.AddressInfo).port, close: () => (sockets.forEach((s) => s.destroy()), server.close()) };
}

test('bytes_down of a download the client aborts under backpressure is what was relayed to it', async () => {
  const { events, proxy } = await setup();
  const origin = await streamingOrigin();
  const known = knownFlows(events);
  const [host, port] = proxy(HTTP.tag).split(':');
  const client = net.connect(Number(port), host!);
  client.on('error', () => undefined);
  client.write(`CONNECT 127.0.0.1:${origin.port} HTTP/1.1\r\nHost: 127.0.0.1:${origin.port}\r\n\r\n`);
  await new Promise((resolve) => setTimeout(resolve, 200));
  // Stop reading: the node's writes to the client back up and it pauses the remote.
  client.pause();
  await new Promise((resolve) => setTimeout(resolve, 500));
  client.resetAndDestroy();

  const t = recordOf((await nextFlow(events, known)).completed).traffic;
  origin.close();
  // What the node handed to the client socket, less its 200 answer, is all it relayed downstream.
  const relayedDown = t.inbound_tx_bytes - ESTABLISHED.length;
  assert.is(t.bytes_down, relayedDown, `bytes_down ${t.bytes_down} vs relayed ${relayedDown} (over by ${t.bytes_down - relayedDown})`);
  assert.ok(t.bytes_down < t.outbound_rx_bytes, `what was read from the remote and never passed on is not in bytes_down (${t.bytes_down} < ${t.outbound_rx_bytes})`);
});

test.run();
