import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { directRelayed } from '../support/direct-download.js';
import { assertFlow, recordOf, type FlowExpectation } from '../support/flow-expect.js';
import { fixture } from '../support/fixture.js';
import { knownFlows, nextFlow, nextRoutedFlowId } from '../support/flow-lifecycle.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { runWeir } from '../support/weir-bin.js';
import { proxyGet, WireClient } from '../support/wire-client.js';

/**
 * A plain forwarded exchange cut before its answer or its request was all relayed: the
 * payload counters bill what was passed on, not what the node read and still held. A
 * download the client stops reading and then resets had up to a few hundred KiB read
 * from the origin that never left the node; an upload the origin stops reading had a
 * write under way to it that the node dropped with the connection.
 */
const HTTP = { tag: 'http-in', protocol: 'http' };
const BIG_HEAD = 'HTTP/1.1 200 OK\r\nContent-Length: 1000000000\r\n\r\n';
const REFUSAL = 'HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\n\r\n';

interface OneShotOrigin {
  port: number;
  /** What the origin read on its first connection, once that connection closed. */
  received: Promise<number>;
  close(): void;
}

/**
 * An origin that answers its first connection's request at once: `stream` sends
 * BIG_HEAD and then body as fast as it is taken; `refuse` reads nothing (the upload
 * backs up into the node), sends REFUSAL half a second in, and a second later reads
 * on to the end.
 */
async function oneShotOrigin(mode: 'stream' | 'refuse'): Promise<OneShotOrigin> {
  const sockets = new Set<net.Socket>();
  let first: (received: number) => void = () => undefined;
  const received = new Promise<number>((resolve) => (first = resolve));
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => s.destroy());
    s.on('close', () => first(s.bytesRead));
    s.once('data', () => {
      if (mode === 'refuse') {
        s.pause();
        setTimeout(() => s.write(REFUSAL), 500).unref();
        setTimeout(() => s.resume(), 1500).unref();
        return;
      }
      s.write(BIG_HEAD);
      const chunk = Buffer.alloc(256 * 1024, 'b');
      const pump = (): void => {
        while (!s.destroyed) if (!s.write(chunk)) return void s.once('drain', pump);
      };
      pump();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return {
    port: (server.address() as net.AddressInfo).port,
    received,
    close: () => (sockets.forEach((s) => s.destroy()), server.close()),
  };
}

const setup = proxyFixture(test, { inbounds: [{ type: 'http', tag: HTTP.tag }] });
const streaming = fixture(test, () => oneShotOrigin('stream'), async (o) => o.close());
const refusing = fixture(test, () => oneShotOrigin('refuse'), async (o) => o.close());

/**
 * A download the client stops reading, cut by `cut` (given the flow's id): its
 * bytes_down bills the body the client connection was handed, no more, and what was
 * read from the origin and never passed on is left out.
 */
async function stalledDownload(cut: (wire: WireClient, flowId: string) => Promise<unknown>, expect: Partial<FlowExpectation> = {}): Promise<void> {
  const { events, proxy } = await setup();
  const origin = await streaming();
  const known = knownFlows(events);
  const wire = await WireClient.open(proxy(HTTP.tag));
  wire.send(proxyGet(`http://127.0.0.1:${origin.port}/download`));
  const flowId = await nextRoutedFlowId(events, known);
  await wire.until('bbbb');
  wire.pause();
  await new Promise((resolve) => setTimeout(resolve, 500));
  await cut(wire, flowId);

  const flow = await nextFlow(events, known);
  await wire.leave('rst');
  assertFlow(flow, { ...directRelayed(HTTP, origin.port), ...expect });
  const t = recordOf(flow.completed).traffic;
  const proxyHead = wire.text.indexOf('\r\n\r\n') + 4;
  const billedBody = t.bytes_down - BIG_HEAD.length;
  const handedBody = t.inbound_tx_bytes - proxyHead;
  assert.is(billedBody, handedBody, `billed ${billedBody} body bytes, ${handedBody} handed to the client (over by ${billedBody - handedBody})`);
  assert.ok(t.bytes_down < t.outbound_rx_bytes, `what was read from the origin and never passed on is not in bytes_down (${t.bytes_down} < ${t.outbound_rx_bytes})`);
}

test('bytes_down of a download the client stops reading and resets is what was passed on to it', async () => {
  await stalledDownload((wire) => wire.leave('rst'));
});

test('bytes_down of a download closed by flows.close while the client is not reading is what was passed on to it', async () => {
  const { node } = await setup();
  await stalledDownload(
    async (_, flowId) => {
      const close = await runWeir(['flows', 'close', flowId, '-c', node.configPath]);
      assert.is(close.code, 0, close.stderr);
    },
    { outcome: 'cancelled', close_reason: 'manual' },
  );
});

test('bytes_up of an upload the origin stops reading is what was handed on to it', async () => {
  const { events, proxy } = await setup();
  const origin = await refusing();
  const known = knownFlows(events);
  const body = 8_000_000;
  const wire = await WireClient.open(proxy(HTTP.tag));
  wire.send(`POST http://127.0.0.1:${origin.port}/upload HTTP/1.1\r\nHost: x\r\nContent-Length: ${body}\r\n\r\n`);
  wire.send('u'.repeat(body));
  await wire.until('413');

  const t = recordOf((await nextFlow(events, known)).completed).traffic;
  // The node closes the origin connection with the answer: the kernel still delivers
  // what it was handed, and the origin, reading again, gets exactly that.
  const received = await origin.received;
  await wire.leave('fin');
  // A write under way when the exchange ended may have been taken in part by the kernel:
  // counted as handed over only once whole, it leaves bytes_up short by less than it.
  assert.ok(t.bytes_up <= received, `bytes_up ${t.bytes_up} is no more than the origin received (${received})`);
  assert.ok(received - t.bytes_up < 64 * 1024, `bytes_up ${t.bytes_up} is short of what the origin received (${received}) by less than a write`);
  assert.is(t.outbound_tx_bytes, t.bytes_up);
});

test.run();
