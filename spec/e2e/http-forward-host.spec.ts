import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { directRelayed } from '../support/direct-download.js';
import { assertFlow, recordOf } from '../support/flow-expect.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { closedConnection } from '../support/origin.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { assertDirectBytes } from '../support/relay-bytes.js';
import { WireClient } from '../support/wire-client.js';

/**
 * A forwarded request reaches the origin with the Host of its request target (RFC 9112
 * §3.2.2), which is what routing matched: the client's own Host may name another site
 * (on a shared address, one the rules block), and an HTTP/1.0 client may send none.
 */
const HTTP = { tag: 'http-in', protocol: 'http' };

const setup = proxyFixture(test, { inbounds: [{ type: 'http', tag: HTTP.tag }] });

test('sends the origin the Host of the request target, not the one the client wrote', async () => {
  const { origin, events, proxy } = await setup();
  const known = knownFlows(events);
  const path = '/bytes/5?case=host-of-target';
  const wire = await WireClient.open(proxy(HTTP.tag));
  await wire.last(`GET ${origin.url(path)} HTTP/1.1\r\nHost: blocked.example\r\nConnection: close\r\n\r\n`);

  const conn = await closedConnection(origin, path);
  assert.equal(conn.hosts, [`127.0.0.1:${origin.port}`]);
  assertFlow(await nextFlow(events, known), directRelayed(HTTP, origin.port));
});

test('forwards an HTTP/1.0 request that has no Host header', async () => {
  const { origin, events, proxy } = await setup();
  const known = knownFlows(events);
  const path = '/bytes/10?case=http10-no-host';
  const wire = await WireClient.open(proxy(HTTP.tag));
  await wire.last(`GET ${origin.url(path)} HTTP/1.0\r\n\r\n`);

  assert.match(wire.text, /^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\nx{10}$/);
  const conn = await closedConnection(origin, path);
  assert.equal(conn.hosts, [`127.0.0.1:${origin.port}`]);
  const flow = await nextFlow(events, known);
  assertFlow(flow, directRelayed(HTTP, origin.port));
  assertDirectBytes(recordOf(flow.completed), conn, 'forward');
});

test.run();
