import { lookup } from 'node:dns/promises';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { curl } from '../support/curl.js';
import { fixture } from '../support/fixture.js';
import { FINAL_DIRECT, NO_AUTH, assertUndialled, type FlowExpectation } from '../support/flow-expect.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { settlesBeforeFar, WAIT_MS } from '../support/far-bound.js';
import { e2eConfig, eventsPath } from '../support/node-config.js';
import { associate } from '../support/socks5-udp-client.js';
import { IPV4_HEADER, assertUdpFlow, udpTraffic } from '../support/udp-expect.js';
import { startUdpEcho } from '../unit/udp/udp-echo.js';
import { startOrigin } from '../support/origin.js';
import { startNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';

// route.block_private under the route of examples/fleet-redis-webhook.json: every name
// or literal that is (or resolves to) an address of the node's own networks is blocked
// before anything is dialled, with failure code TARGET_PRIVATE.

const EXAMPLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'examples', 'fleet-redis-webhook.json');
const FLEET_ROUTE = (JSON.parse(fs.readFileSync(EXAMPLE, 'utf8')) as { route: Record<string, unknown> }).route;

const SOCKS = { tag: 'socks-in', protocol: 'socks' };
const HTTP = { tag: 'http-in', protocol: 'http' };
const UDP = { tag: 'udp-in', protocol: 'socks' };
const CUSTOMER = { scheme: 'socks5', principal_key: 'customer-a', attributes: { username: 'customer-a' } };
const PASSWORD = 'customer-a-password';
/** Names the node resolves from dns.hosts; the system resolver answers `localhost`. */
const HOSTS = {
  'loopback.test': '127.0.0.1',
  'internal.test': '10.1.2.3',
  'v6-loopback.test': '::1',
  'metadata.test': '169.254.169.254',
  'cgnat.test': '100.64.0.1',
  // A public address first: any private one blocks the name.
  'mixed.test': ['192.0.43.10', '127.0.0.1'],
};

const setup = fixture(
  test,
  async () => {
    const stateDir = tempDir();
    const [v4, v6] = [await startOrigin(), await startOrigin({ host: '::1' })];
    const config = e2eConfig({
      stateDir,
      inbounds: [
        { type: 'socks', tag: SOCKS.tag, listen: '127.0.0.1', port: 0, users: [{ username: 'customer-a', password: PASSWORD, principal: 'customer-a' }] },
        { type: 'http', tag: HTTP.tag, listen: '127.0.0.1', port: 0 },
        { type: 'socks', tag: UDP.tag, listen: '127.0.0.1', port: 0 },
      ],
      route: FLEET_ROUTE,
      dns: { hosts: HOSTS },
    });
    const node = await startNode(config);
    return { v4, v6, node, events: eventsPath(stateDir) };
  },
  async ({ v4, v6, node }) => {
    await node.stop();
    await Promise.all([v4.close(), v6.close()]);
  },
);

function refusedAt(inbound: typeof SOCKS, auth: FlowExpectation['auth'], target: { host: string; port: number }, address: string): FlowExpectation {
  return {
    inbound,
    auth,
    target,
    route: FINAL_DIRECT,
    outcome: 'blocked',
    failure: { stage: 'connect', code: 'TARGET_PRIVATE', remote: { host: address, port: target.port } },
  };
}

test('the fleet example turns route.block_private on', () => {
  assert.is(FLEET_ROUTE['block_private'], true);
});

test('SOCKS5 names that resolve to loopback, private, link-local or CGNAT addresses are blocked: TARGET_PRIVATE, nothing dialled', async () => {
  const { v4, v6, node, events } = await setup();
  const [first] = await lookup('localhost', { all: true });
  const cases: [string, number, string][] = [
    ['localhost', first!.family === 6 ? v6.port : v4.port, first!.address],
    ['loopback.test', v4.port, '127.0.0.1'],
    ['internal.test', v4.port, '10.1.2.3'],
    ['v6-loopback.test', v6.port, '::1'],
    ['metadata.test', 80, '169.254.169.254'],
    ['cgnat.test', 80, '100.64.0.1'],
    ['mixed.test', v4.port, '127.0.0.1'],
  ];
  for (const [host, port, address] of cases) {
    const known = knownFlows(events);
    const res = await curl(['--socks5-hostname', `127.0.0.1:${node.ports[SOCKS.tag]}`, '--proxy-user', `customer-a:${PASSWORD}`, `http://${host}:${port}/${host}`]);
    // curl 97: the SOCKS5 server refused the connect (reply 0x02, not allowed by ruleset).
    assert.is(res.code, 97, `${host}: ${res.stderr}`);
    assertUndialled(await nextFlow(events, known), refusedAt(SOCKS, CUSTOMER, { host, port }, address));
  }
  assert.equal([v4.connections().length, v6.connections().length], [0, 0], 'no origin got a connection');
});

test('IP literals of loopback, in IPv6 and IPv4-mapped form too, are blocked: TARGET_PRIVATE', async () => {
  const { v4, v6, node, events } = await setup();
  // The host as the URL writes it, then as the flow's target records it.
  for (const [inUrl, host, port, address] of [
    ['[::1]', '::1', v6.port, '::1'],
    ['127.0.0.1', '127.0.0.1', v4.port, '127.0.0.1'],
    ['[::ffff:127.0.0.1]', '::ffff:127.0.0.1', v4.port, '127.0.0.1'],
  ] as const) {
    const known = knownFlows(events);
    const res = await curl(['--socks5-hostname', `127.0.0.1:${node.ports[SOCKS.tag]}`, '--proxy-user', `customer-a:${PASSWORD}`, `http://${inUrl}:${port}/`]);
    assert.is(res.code, 97, `${host}: ${res.stderr}`);
    assertUndialled(await nextFlow(events, known), refusedAt(SOCKS, CUSTOMER, { host, port }, address));
  }
  assert.equal([v4.connections().length, v6.connections().length], [0, 0], 'no origin got a connection');
});

test('through the HTTP proxy, a forwarded request and a CONNECT to a private name are answered 403', async () => {
  const { v4, node, events } = await setup();
  const proxy = `http://127.0.0.1:${node.ports[HTTP.tag]}`;
  let known = knownFlows(events);
  const forwarded = await curl(['-x', proxy, '-o', '/dev/null', '-w', '%{http_code}', `http://loopback.test:${v4.port}/forwarded`]);
  assert.is(forwarded.body.toString(), '403');
  assertUndialled(await nextFlow(events, known), refusedAt(HTTP, NO_AUTH, { host: 'loopback.test', port: v4.port }, '127.0.0.1'));
  known = knownFlows(events);
  const tunnel = await curl(['-p', '-x', proxy, `http://internal.test:${v4.port}/tunnel`]);
  assert.match(tunnel.stderr, /403/);
  assertUndialled(await nextFlow(events, known), refusedAt(HTTP, NO_AUTH, { host: 'internal.test', port: v4.port }, '10.1.2.3'));
  assert.is(v4.connections().length, 0, 'the origin got no connection');
});

test('a SOCKS5 UDP association whose first datagram goes to a loopback address is blocked: TARGET_PRIVATE, nothing sent', async () => {
  const { node, events } = await setup();
  const echo = await startUdpEcho();
  const known = knownFlows(events);
  const a = await associate({ host: '127.0.0.1', port: node.ports[UDP.tag]! }, { timeoutMs: WAIT_MS });
  const target = { host: '127.0.0.1', port: echo.port };
  a.send(target, Buffer.from('here?'));
  await settlesBeforeFar(a.controlClosed, 'the end of the association');
  assertUdpFlow(await nextFlow(events, known), {
    inbound: UDP,
    target,
    route: { ...FINAL_DIRECT, selection_chain: ['direct'] },
    outcome: 'blocked',
    failure: { stage: 'connect', code: 'TARGET_PRIVATE', remote: target },
    traffic: { ...udpTraffic([], [], 'direct'), inbound_rx_bytes: 3 + 10 + IPV4_HEADER + 5 },
  });
  assert.is(echo.sources.length, 0, 'the echo got nothing');
  await a.close();
  await echo.close();
});

test('no refused flow was routed, and every flow is complete', async () => {
  const { node, events } = await setup();
  const all = await stopAndAudit(node, events);
  assert.is(all.filter((e) => e.event_type === 'flow.routed').length, 0);
});

test.run();
