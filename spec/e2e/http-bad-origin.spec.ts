import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { curl } from '../support/curl.js';
import { directRelayed } from '../support/direct-download.js';
import { assertFlow } from '../support/flow-expect.js';
import { fixture } from '../support/fixture.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { rawExchange } from '../support/raw-client.js';
import { startRawOrigin } from '../support/raw-origin.js';
import { proxyGet } from '../support/wire-client.js';

const HTTP = { tag: 'http-in', protocol: 'http' };

/** Answers a Node http server cannot pass on as they are, and what is wrong with each. */
const ANSWERS = {
  'status-099': ['has the status 099', 'HTTP/1.1 099 Weird\r\nContent-Length: 2\r\n\r\nok'],
  'del-in-reason': ['has a DEL in its reason phrase', 'HTTP/1.1 200 O\x7fK\r\nContent-Length: 2\r\n\r\nok'],
  'upgrade-101': ['switches protocols (101 with Upgrade)', 'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: weird\r\n\r\nhello'],
  'bare-101': ['switches protocols (101 without Upgrade)', 'HTTP/1.1 101 Switching Protocols\r\n\r\nhello'],
} as const;

const setup = proxyFixture(test, { inbounds: [{ type: 'http', tag: HTTP.tag }] });
const badOrigin = fixture(
  test,
  () => startRawOrigin(Object.fromEntries(Object.entries(ANSWERS).map(([name, [, answer]]) => [name, answer]))),
  (origin) => origin.close(),
);

for (const [name, [what]] of Object.entries(ANSWERS)) {
  test(`answers 502 and records a failed flow when the origin's answer ${what}`, async () => {
    const { node, events } = await setup();
    const origin = await badOrigin();
    const known = knownFlows(events);
    const res = await rawExchange(node.ports[HTTP.tag]!, Buffer.from(proxyGet(origin.url(name), { close: true })));
    assert.ok(res.closed, 'the answer ends: the node closes the connection as the client asked');
    assert.match(res.data.toString('latin1'), /^HTTP\/1\.1 502 Bad Gateway\r\n/);
    assertFlow(await nextFlow(events, known), {
      ...directRelayed(HTTP, origin.port),
      outcome: 'failed',
      close_reason: 'upstream_error',
      failure: { stage: 'relay', code: 'UPSTREAM_RESET', remote: { host: '127.0.0.1', port: origin.port } },
    });
  });
}

test('stays up, forwards the next request, and stops with every flow completed once', async () => {
  const { node, origin, events, proxy } = await setup();
  const res = await curl(['-x', `http://${proxy(HTTP.tag)}`, origin.url('/bytes/10?case=after-bad-origins')]);
  assert.is(res.code, 0, res.stderr);
  assert.is(res.body.length, 10);
  await stopAndAudit(node, events);
});

test.run();
