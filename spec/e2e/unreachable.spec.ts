import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { curl } from '../support/curl.js';
import { FINAL_DIRECT, NO_AUTH, assertFlow, type FlowExpectation } from '../support/flow-expect.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { freePort } from '../support/free-port.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { rawExchange } from '../support/raw-client.js';
import { startSlowHop } from '../support/slow-hop.js';

const SOCKS = { tag: 'socks-in', protocol: 'socks' };
const HTTP = { tag: 'http-in', protocol: 'http' };
// Inbounds routed to a hop that takes the connection and never answers its CONNECT.
const SOCKS_STALL = { tag: 'socks-stall', protocol: 'socks' };
const HTTP_STALL = { tag: 'http-stall', protocol: 'http' };

const stall = await startSlowHop(null);
const setup = proxyFixture(test, {
  inbounds: [
    { type: 'socks', tag: SOCKS.tag },
    { type: 'http', tag: HTTP.tag },
    { type: 'socks', tag: SOCKS_STALL.tag },
    { type: 'http', tag: HTTP_STALL.tag },
  ],
  outbounds: [{ type: 'http', tag: 'stall', server: '127.0.0.1', port: stall.port }],
  rules: [{ inbound: [SOCKS_STALL.tag, HTTP_STALL.tag], outbound: 'stall' }],
  flows: { connect_timeout_ms: 1000 },
});
test.after(() => stall.close());

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

/** A flow whose hop did not answer within connect_timeout_ms. */
function hopTimedOut(inbound: typeof SOCKS, port: number): FlowExpectation {
  return {
    inbound,
    auth: NO_AUTH,
    target: { host: '127.0.0.1', port },
    route: { target: 'stall', matched_rule: { index: 0, condition: `inbound=${SOCKS_STALL.tag},${HTTP_STALL.tag}` } },
    outcome: 'failed',
    close_reason: 'upstream_error',
    failure: { stage: 'hop:stall', code: 'HOP_TIMEOUT', remote: { host: '127.0.0.1', port: stall.port } },
  };
}

test('answers a plain HTTP request and a CONNECT whose hop does not answer in time with 504, as for a remote that does not', async () => {
  const { events, proxy } = await setup();
  for (const connect of [[], ['-p']]) {
    const known = knownFlows(events);
    const res = await curl([...connect, '-x', `http://${proxy(HTTP_STALL.tag)}`, '-o', '/dev/null', '-w', '%{http_code}', 'http://127.0.0.1:8081/']);
    assert.is(connect.length ? res.stderr.match(/\b5\d\d\b/)?.[0] : res.body.toString(), '504', res.stderr);
    assertFlow(await nextFlow(events, known), hopTimedOut(HTTP_STALL, 8081));
  }
});

test('answers a SOCKS5 CONNECT whose hop does not answer in time with reply 6 (TTL expired), as for a remote that does not', async () => {
  const { events, proxy } = await setup();
  const known = knownFlows(events);
  const port = Number(proxy(SOCKS_STALL.tag).split(':')[1]);
  // greeting (no auth), then CONNECT 127.0.0.1:8081
  const res = await rawExchange(port, [5, 1, 0, 5, 1, 0, 1, 127, 0, 0, 1, 0x1f, 0x91]);
  assert.equal([...res.data.subarray(0, 4)], [5, 0, 5, 6], 'method choice, then the reply');
  assertFlow(await nextFlow(events, known), hopTimedOut(SOCKS_STALL, 8081));
});

test('writes a sink file of valid envelopes with every flow complete', async () => {
  const { node, events } = await setup();
  await stopAndAudit(node, events);
});

test.run();
