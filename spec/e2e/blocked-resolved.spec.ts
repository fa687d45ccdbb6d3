import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { curl } from '../support/curl.js';
import { startDnsResponder } from '../support/dns-responder.js';
import { fixture } from '../support/fixture.js';
import { DIRECT, FINAL_DIRECT, NO_AUTH, assertFlow, assertUndialled, recordOf, type FlowExpectation } from '../support/flow-expect.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { e2eConfig, eventsPath } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';

// ip_cidr rules judge the addresses a name target resolves to, and the direct dial
// connects to the addresses judged, never to a second lookup's answer.

const SOCKS = { tag: 'socks-in', protocol: 'socks' };
const HTTP = { tag: 'http-in', protocol: 'http' };
/** The private-address rule examples/fleet-redis-webhook.json used to rely on. */
const PRIVATE_CIDRS = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '127.0.0.0/8', '::1/128'];
const BY_PRIVATE_RULE = { target: 'block', matched_rule: { index: 0, condition: `ip_cidr=${PRIVATE_CIDRS.join(',')}` } };
const INBOUNDS = [
  { type: 'socks', tag: SOCKS.tag, listen: '127.0.0.1', port: 0 },
  { type: 'http', tag: HTTP.tag, listen: '127.0.0.1', port: 0 },
];

/** A node on the system resolver (for `localhost`) and dns.hosts, with the private-address rule. */
const rules = fixture(
  test,
  async () => {
    const stateDir = tempDir();
    const origin = await startOrigin();
    const hosts = { 'loopback.test': '127.0.0.1', 'internal.test': '10.1.2.3', 'v6-loopback.test': '::1' };
    const node = await startNode(e2eConfig({ stateDir, inbounds: INBOUNDS, rules: [{ ip_cidr: PRIVATE_CIDRS, outbound: 'block' }], dns: { hosts } }));
    return { origin, node, events: eventsPath(stateDir) };
  },
  async ({ origin, node }) => {
    await node.stop();
    await origin.close();
  },
);

/**
 * A node asking a DNS server whose answer for rebind.test changes: 127.0.0.3 first,
 * 127.0.0.2 after. A rule blocks 127.0.0.2; an origin listens on each address.
 */
const rebinding = fixture(
  test,
  async () => {
    const stateDir = tempDir();
    let asked = 0;
    const dns = await startDnsResponder((name, type) => {
      if (name !== 'rebind.test') return null;
      if (type === 'AAAA') return [];
      return ++asked === 1 ? ['127.0.0.3'] : ['127.0.0.2'];
    });
    const judged = await startOrigin({ host: '127.0.0.3' });
    const rebound = await startOrigin({ host: '127.0.0.2', port: judged.port });
    const config = e2eConfig({ stateDir, inbounds: INBOUNDS, rules: [{ ip_cidr: ['127.0.0.2/32'], outbound: 'block' }], dns: { servers: [dns.server] } });
    const node = await startNode(config);
    return { dns, judged, rebound, node, events: eventsPath(stateDir) };
  },
  async ({ dns, judged, rebound, node }) => {
    await node.stop();
    await Promise.all([dns.close(), judged.close(), rebound.close()]);
  },
);

function blocked(inbound: typeof SOCKS, target: { host: string; port: number }, route = BY_PRIVATE_RULE): FlowExpectation {
  return { inbound, auth: NO_AUTH, target, route, outcome: 'blocked' };
}

test('ip_cidr rules block SOCKS5 names that resolve into their blocks: localhost, a hosts name, a 10.x name, an IPv6 loopback name', async () => {
  const { origin, node, events } = await rules();
  for (const host of ['localhost', 'loopback.test', 'internal.test', 'v6-loopback.test']) {
    const known = knownFlows(events);
    const res = await curl(['--socks5-hostname', `127.0.0.1:${node.ports[SOCKS.tag]}`, `http://${host}:${origin.port}/${host}`]);
    assert.is(res.code, 97, `${host}: ${res.stderr}`);
    assertUndialled(await nextFlow(events, known), blocked(SOCKS, { host, port: origin.port }));
  }
  const known = knownFlows(events);
  const res = await curl(['--socks5-hostname', `127.0.0.1:${node.ports[SOCKS.tag]}`, `http://[::1]:${origin.port}/`]);
  assert.is(res.code, 97, res.stderr);
  assertUndialled(await nextFlow(events, known), blocked(SOCKS, { host: '::1', port: origin.port }));
  assert.is(origin.connections().length, 0, 'the origin got no connection');
});

test('ip_cidr rules block a forwarded HTTP request and a CONNECT to a name in their blocks with 403', async () => {
  const { origin, node, events } = await rules();
  const proxy = `http://127.0.0.1:${node.ports[HTTP.tag]}`;
  let known = knownFlows(events);
  const forwarded = await curl(['-x', proxy, '-o', '/dev/null', '-w', '%{http_code}', `http://localhost:${origin.port}/forwarded`]);
  assert.is(forwarded.body.toString(), '403');
  assertUndialled(await nextFlow(events, known), blocked(HTTP, { host: 'localhost', port: origin.port }));
  known = knownFlows(events);
  const tunnel = await curl(['-p', '-x', proxy, `http://internal.test:${origin.port}/tunnel`]);
  assert.match(tunnel.stderr, /403/);
  assertUndialled(await nextFlow(events, known), blocked(HTTP, { host: 'internal.test', port: origin.port }));
  assert.is(origin.connections().length, 0, 'the origin got no connection');
});

test('a rebinding name is dialled at the address the rules judged, asked once; its next answer is blocked', async () => {
  const { dns, judged, rebound, node, events } = await rebinding();
  const port = judged.port;
  let known = knownFlows(events);
  const first = await curl(['--socks5-hostname', `127.0.0.1:${node.ports[SOCKS.tag]}`, `http://rebind.test:${port}/bytes/5`]);
  assert.equal([first.code, first.body.toString()], [0, 'xxxxx'], first.stderr);
  const relayed = await nextFlow(events, known);
  assertFlow(relayed, { inbound: SOCKS, auth: NO_AUTH, target: { host: 'rebind.test', port }, route: FINAL_DIRECT, outbound: DIRECT, outcome: 'direct_relayed' });
  assert.is(recordOf(relayed.completed).target.resolved_ip, '127.0.0.3');
  // One A question for the rules and the dial together: the dial asked no second time.
  assert.equal(dns.questions.filter((q) => q.startsWith('A ')), ['A rebind.test']);
  known = knownFlows(events);
  const second = await curl(['--socks5-hostname', `127.0.0.1:${node.ports[SOCKS.tag]}`, `http://rebind.test:${port}/bytes/5?again`]);
  assert.is(second.code, 97, second.stderr);
  const route = { target: 'block', matched_rule: { index: 0, condition: 'ip_cidr=127.0.0.2/32' } };
  assertUndialled(await nextFlow(events, known), blocked(SOCKS, { host: 'rebind.test', port }, route));
  assert.equal([judged.connections().length, rebound.connections().length], [1, 0], 'only the judged address got a connection');
});

test('no blocked flow was routed, and every flow is complete', async () => {
  for (const setup of [rules, rebinding]) {
    const { node, events } = await setup();
    const all = await stopAndAudit(node, events);
    assert.is(all.filter((e) => e.event_type === 'flow.routed' && recordOf(e).target.host !== 'rebind.test').length, 0);
  }
});

test.run();
