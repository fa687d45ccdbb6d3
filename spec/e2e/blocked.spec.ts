import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { curl } from '../support/curl.js';
import { NO_AUTH, assertFlow, recordOf, type FlowExpectation } from '../support/flow-expect.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { rawExchange } from '../support/raw-client.js';

const SOCKS = { tag: 'socks-in', protocol: 'socks' };
const HTTP = { tag: 'http-in', protocol: 'http' };
const BLOCKED_SUFFIX = { target: 'block', matched_rule: { index: 0, condition: 'domain_suffix=blocked.test' } };
const BLOCKED_PORT = { target: 'block', matched_rule: { index: 1, condition: 'port=9' } };

const setup = proxyFixture(test, {
  inbounds: [
    { type: 'socks', tag: SOCKS.tag },
    { type: 'http', tag: HTTP.tag },
  ],
  rules: [
    { domain_suffix: ['blocked.test'], outbound: 'block' },
    { port: [9], outbound: 'block' },
  ],
});

function blocked(inbound: typeof SOCKS, target: { host: string; port: number }, route = BLOCKED_SUFFIX): FlowExpectation {
  return { inbound, auth: NO_AUTH, target, route, outcome: 'blocked' };
}

test('blocks a SOCKS5 request matched by a domain_suffix rule: curl fails, flow blocked, no flow.routed', async () => {
  const { events, proxy } = await setup();
  const known = knownFlows(events);
  const res = await curl(['--socks5-hostname', proxy(SOCKS.tag), 'http://www.blocked.test/']);
  assert.is.not(res.code, 0, 'curl fails');
  assertFlow(await nextFlow(events, known), blocked(SOCKS, { host: 'www.blocked.test', port: 80 }));
});

test('answers a blocked plain HTTP request with 403', async () => {
  const { events, proxy } = await setup();
  const known = knownFlows(events);
  const res = await curl(['-x', `http://${proxy(HTTP.tag)}`, '-o', '/dev/null', '-w', '%{http_code}', 'http://blocked.test:8080/x']);
  assert.is(res.body.toString(), '403');
  assertFlow(await nextFlow(events, known), blocked(HTTP, { host: 'blocked.test', port: 8080 }));
});

test('refuses a blocked CONNECT with 403', async () => {
  const { events, proxy } = await setup();
  const known = knownFlows(events);
  const res = await curl(['-p', '-x', `http://${proxy(HTTP.tag)}`, 'http://api.blocked.test:443/']);
  assert.is.not(res.code, 0, 'curl fails');
  assert.match(res.stderr, /403/);
  assertFlow(await nextFlow(events, known), blocked(HTTP, { host: 'api.blocked.test', port: 443 }));
});

test('reports the index and condition of the rule that decided', async () => {
  const { events, proxy } = await setup();
  const known = knownFlows(events);
  const res = await curl(['--socks5-hostname', proxy(SOCKS.tag), 'http://127.0.0.1:9/']);
  assert.is.not(res.code, 0, 'curl fails');
  assertFlow(await nextFlow(events, known), blocked(SOCKS, { host: '127.0.0.1', port: 9 }, BLOCKED_PORT));
});

test('a blocked flow counts its client handshake and refusal on the inbound side, nothing outbound', async () => {
  const { events, node } = await setup();
  const host = Buffer.from('www.blocked.test');
  const cases = [
    { tag: SOCKS.tag, sent: Buffer.from([5, 1, 0, 5, 1, 0, 3, host.length, ...host, 0, 80]) },
    { tag: HTTP.tag, sent: Buffer.from('CONNECT www.blocked.test:443 HTTP/1.1\r\nHost: www.blocked.test:443\r\n\r\n') },
    { tag: HTTP.tag, sent: Buffer.from('GET http://www.blocked.test/x HTTP/1.1\r\nHost: www.blocked.test\r\nConnection: close\r\n\r\n') },
  ];
  for (const { tag, sent } of cases) {
    const known = knownFlows(events);
    const answer = await rawExchange(node.ports[tag]!, sent);
    assert.ok(answer.closed && answer.data.length > 0, `${tag}: refused`);
    const { traffic } = recordOf((await nextFlow(events, known)).completed);
    assert.equal(
      traffic,
      { bytes_up: 0, bytes_down: 0, inbound_rx_bytes: sent.length, inbound_tx_bytes: answer.data.length, outbound_rx_bytes: 0, outbound_tx_bytes: 0, packets_up: null, packets_down: null },
      sent.toString('latin1').slice(0, 8),
    );
  }
});

test('writes a sink file of valid envelopes with every flow complete', async () => {
  const { node, events } = await setup();
  const all = await stopAndAudit(node, events);
  assert.is(all.filter((e) => e.event_type === 'flow.routed').length, 0, 'no blocked flow was routed');
});

test.run();
