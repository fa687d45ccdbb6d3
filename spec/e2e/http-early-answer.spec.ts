import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { directRelayed } from '../support/direct-download.js';
import { assertFlow, recordOf } from '../support/flow-expect.js';
import { fixture } from '../support/fixture.js';
import { knownFlows, nextFlows } from '../support/flow-lifecycle.js';
import { closedConnection } from '../support/origin.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { startRawOrigin } from '../support/raw-origin.js';
import { proxyGet, WireClient } from '../support/wire-client.js';

/**
 * An origin may answer before it has read the request body (a 413, a 401): the answer
 * ends the exchange while the client is still sending. What the client goes on sending
 * of that body is read and dropped, so the connection's next request is answered; it
 * stopped being read instead, and the keep-alive connection hung until its idle
 * timeout reset it.
 */
const HTTP = { tag: 'http-in', protocol: 'http' };
const TOO_LARGE = 'HTTP/1.1 413 Payload Too Large\r\nContent-Length: 4\r\n\r\nbig\n';

const setup = proxyFixture(test, { inbounds: [{ type: 'http', tag: HTTP.tag }] });
const early = fixture(test, () => startRawOrigin({ upload: TOO_LARGE }), (origin) => origin.close());

test('answers the next request on a connection whose last answer came before its body was sent', async () => {
  const { origin, events, proxy } = await setup();
  const refusing = await early();
  const known = knownFlows(events);
  const body = 300_000;
  const wire = await WireClient.open(proxy(HTTP.tag));
  wire.send(`POST ${refusing.url('upload')} HTTP/1.1\r\nHost: x\r\nContent-Length: ${body}\r\n\r\n${'u'.repeat(100_000)}`);
  await wire.until('big\n');
  const path = '/bytes/10?case=after-early-answer';
  wire.send('u'.repeat(body - 100_000) + proxyGet(origin.url(path)));
  await wire.until('xxxxxxxxxx');
  await wire.leave('fin');

  const [refused, next] = await nextFlows(events, known, 2);
  assertFlow(refused!, directRelayed(HTTP, refusing.port));
  assert.is(recordOf(refused!.completed).traffic.bytes_down, TOO_LARGE.length);
  assertFlow(next!, directRelayed(HTTP, origin.port));
  const t = recordOf(next!.completed).traffic;
  assert.is(t.bytes_down, (await closedConnection(origin, path)).bytesWritten);
  assert.ok(t.inbound_rx_bytes < 1000, `the next request does not count the body before it (inbound_rx_bytes ${t.inbound_rx_bytes})`);
});

test('stops with every flow completed once', async () => {
  const { node, events } = await setup();
  await stopAndAudit(node, events);
});

test.run();
