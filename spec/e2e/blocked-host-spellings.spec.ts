import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { NO_AUTH, assertFlow } from '../support/flow-expect.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { rawExchange } from '../support/raw-client.js';

const SOCKS = { tag: 'socks-in', protocol: 'socks' };
const HTTP = { tag: 'http-in', protocol: 'http' };
const BY_LOCALHOST = { target: 'block', matched_rule: { index: 0, condition: 'domain_suffix=localhost' } };
const BY_LOOPBACK = { target: 'block', matched_rule: { index: 1, condition: 'ip_cidr=127.0.0.0/8' } };
const BY_SUFFIX = { target: 'block', matched_rule: { index: 2, condition: 'domain_suffix=blocked.test' } };
/** How long a client waits for the answer and the close: a tunnel relayed instead of refused stays open. */
const ANSWER_MS = 3000;

const setup = proxyFixture(test, {
  inbounds: [
    { type: 'socks', tag: SOCKS.tag },
    { type: 'http', tag: HTTP.tag },
  ],
  rules: [
    { domain_suffix: ['localhost'], outbound: 'block' },
    { ip_cidr: ['127.0.0.0/8'], outbound: 'block' },
    { domain_suffix: ['blocked.test'], outbound: 'block' },
  ],
  // Without sniffing a tunnel to an IP is routed before it is answered, so a blocked
  // one gets its refusal (SOCKS5 0x02, HTTP 403) rather than a success and a close.
  route: { sniff: false },
});

/** A no-auth SOCKS5 CONNECT to the domain `name` as one write. */
function connectDomain(name: string, port: number): Buffer {
  const bytes = Buffer.from(name, 'latin1');
  return Buffer.from([5, 1, 0, 5, 1, 0, 3, bytes.length, ...bytes, port >> 8, port & 0xff]);
}

/** The no-auth method choice, then VER REP RSV ATYP(IPv4) 0.0.0.0:0 */
const answered = (rep: number): number[] => [5, 0, 5, rep, 0, 1, 0, 0, 0, 0, 0, 0];

test('a SOCKS5 domain in a numeric form of a loopback address is blocked by ip_cidr 127.0.0.0/8, as 127.0.0.1', async () => {
  const { origin, node, events } = await setup();
  for (const name of ['127.1', '2130706433', '0x7f000001', '0177.0.0.1']) {
    const known = knownFlows(events);
    const res = await rawExchange(node.ports[SOCKS.tag]!, connectDomain(name, origin.port), { timeoutMs: ANSWER_MS });
    assert.equal([...res.data], answered(2), `${name}: connection not allowed by ruleset`);
    assert.ok(res.closed, name);
    const target = { host: '127.0.0.1', port: origin.port };
    assertFlow(await nextFlow(events, known), { inbound: SOCKS, auth: NO_AUTH, target, route: BY_LOOPBACK, outcome: 'blocked' });
  }
});

test('an HTTP CONNECT to an IPv4-mapped loopback address in any spelling is blocked by ip_cidr 127.0.0.0/8 with 403', async () => {
  const { origin, node, events } = await setup();
  for (const host of ['::ffff:7f00:1', '0:0:0:0:0:ffff:127.0.0.1']) {
    const known = knownFlows(events);
    const head = `CONNECT [${host}]:${origin.port} HTTP/1.1\r\nHost: [${host}]:${origin.port}\r\n\r\n`;
    const res = await rawExchange(node.ports[HTTP.tag]!, Buffer.from(head), { timeoutMs: ANSWER_MS });
    assert.match(res.data.toString('latin1'), /^HTTP\/1\.1 403 /, host);
    const target = { host, port: origin.port };
    assertFlow(await nextFlow(events, known), { inbound: HTTP, auth: NO_AUTH, target, route: BY_LOOPBACK, outcome: 'blocked' });
  }
});

test('a SOCKS5 domain with a trailing dot, in any case, meets the domain rules', async () => {
  const { node, events } = await setup();
  for (const [name, route] of [
    ['X.BLOCKED.TEST.', BY_SUFFIX],
    ['LOCALHOST.', BY_LOCALHOST],
  ] as const) {
    const known = knownFlows(events);
    const res = await rawExchange(node.ports[SOCKS.tag]!, connectDomain(name, 80), { timeoutMs: ANSWER_MS });
    assert.equal([...res.data], answered(2), `${name}: connection not allowed by ruleset`);
    assertFlow(await nextFlow(events, known), { inbound: SOCKS, auth: NO_AUTH, target: { host: name, port: 80 }, route, outcome: 'blocked' });
  }
});

test('the unspecified address, which a connect takes for this host, is never dialled: failed TARGET_INVALID', async () => {
  const { origin, node, events } = await setup();
  const FINAL = { target: 'direct', matched_rule: { index: -1, condition: 'final' } };
  const failure = (target: { host: string; port: number }) => ({ stage: 'connect', code: 'TARGET_INVALID', remote: target });
  for (const name of ['0', '0x0', '0.0']) {
    const known = knownFlows(events);
    const res = await rawExchange(node.ports[SOCKS.tag]!, connectDomain(name, origin.port), { timeoutMs: ANSWER_MS });
    assert.equal([...res.data], answered(1), `${name}: general failure`);
    const target = { host: '0.0.0.0', port: origin.port };
    assertFlow(await nextFlow(events, known), { inbound: SOCKS, auth: NO_AUTH, target, route: FINAL, outcome: 'failed', close_reason: 'upstream_error', failure: failure(target) });
  }
  for (const host of ['0.0.0.0', '[::]', '[::ffff:0.0.0.0]']) {
    const known = knownFlows(events);
    const head = `CONNECT ${host}:${origin.port} HTTP/1.1\r\nHost: ${host}:${origin.port}\r\n\r\n`;
    const res = await rawExchange(node.ports[HTTP.tag]!, Buffer.from(head), { timeoutMs: ANSWER_MS });
    assert.match(res.data.toString('latin1'), /^HTTP\/1\.1 502 /, host);
    const target = { host: host.replace(/^\[|\]$/g, ''), port: origin.port };
    assertFlow(await nextFlow(events, known), { inbound: HTTP, auth: NO_AUTH, target, route: FINAL, outcome: 'failed', close_reason: 'upstream_error', failure: failure(target) });
  }
});

test('no blocked flow was routed, and every flow is complete', async () => {
  const { node, events } = await setup();
  const all = await stopAndAudit(node, events);
  assert.is(all.filter((e) => e.event_type === 'flow.routed').length, 0);
});

test.run();
