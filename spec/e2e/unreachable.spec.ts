import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { curl } from '../support/curl.js';
import { FINAL_DIRECT, NO_AUTH, assertFlow, type FlowExpectation } from '../support/flow-expect.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { freePort } from '../support/free-port.js';
import { proxyFixture } from '../support/proxy-fixture.js';

const SOCKS = { tag: 'socks-in', protocol: 'socks' };
const HTTP = { tag: 'http-in', protocol: 'http' };

const setup = proxyFixture(test, {
  inbounds: [
    { type: 'socks', tag: SOCKS.tag },
    { type: 'http', tag: HTTP.tag },
  ],
  flows: { connect_timeout_ms: 1000 },
});

function refused(inbound: typeof SOCKS, port: number): FlowExpectation {
  const target = { host: '127.0.0.1', port };
  return {
    inbound,
    auth: NO_AUTH,
    target,
    route: FINAL_DIRECT,
    outcome: 'failed',
    close_reason: 'upstream_error',
    failure: { stage: 'connect', code: 'DIAL_REFUSED', remote: target },
  };
}

test('fails a SOCKS5 flow to a closed port with upstream_error and DIAL_REFUSED', async () => {
  const { events, proxy } = await setup();
  // Nothing listens there now: the dial is refused at once.
  const port = await freePort();
  const known = knownFlows(events);
  const res = await curl(['--socks5-hostname', proxy(SOCKS.tag), `http://127.0.0.1:${port}/`]);
  assert.is.not(res.code, 0, 'curl fails');
  assertFlow(await nextFlow(events, known), refused(SOCKS, port));
});

test('answers a plain HTTP request to a closed port with 502 and fails the flow', async () => {
  const { events, proxy } = await setup();
  // Nothing listens there now: the dial is refused at once.
  const port = await freePort();
  const known = knownFlows(events);
  const res = await curl(['-x', `http://${proxy(HTTP.tag)}`, '-o', '/dev/null', '-w', '%{http_code}', `http://127.0.0.1:${port}/`]);
  assert.is(res.body.toString(), '502');
  assertFlow(await nextFlow(events, known), refused(HTTP, port));
});

test('answers a CONNECT to a closed port with 502 and fails the flow', async () => {
  const { events, proxy } = await setup();
  // Nothing listens there now: the dial is refused at once.
  const port = await freePort();
  const known = knownFlows(events);
  const res = await curl(['-p', '-x', `http://${proxy(HTTP.tag)}`, `http://127.0.0.1:${port}/`]);
  assert.is.not(res.code, 0, 'curl fails');
  assert.match(res.stderr, /502/);
  assertFlow(await nextFlow(events, known), refused(HTTP, port));
});

test('writes a sink file of valid envelopes with every flow complete', async () => {
  const { node, events } = await setup();
  await stopAndAudit(node, events);
});

test.run();
