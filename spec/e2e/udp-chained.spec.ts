import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { settlesBeforeFar, WAIT_MS } from '../support/far-bound.js';
import { fixture } from '../support/fixture.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { e2eConfig, eventsPath } from '../support/node-config.js';
import { associate } from '../support/socks5-udp-client.js';
import { startNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';
import { startDante, startMicrosocks, type UpstreamProxy } from '../support/upstream-proxies.js';
import { startUdpEcho } from '../unit/udp/udp-echo.js';
import { hopOutbound, relayHop } from '../support/chain-expect.js';
import { assertUdpFlow, IPV4_HEADER, moved, udpDelta, udpStatsAfter, udpStatsNow, udpTraffic } from '../support/udp-expect.js';

/** Outbound tag → a socks inbound `in-<tag>` routed to it by rule `index`. */
const ROUTED = ['dante', 'ms', 'doomed'] as const;
type Routed = (typeof ROUTED)[number];

const setup = fixture(
  test,
  async () => {
    const [dante, ms, doomed] = await Promise.all([startDante({ udp: true }), startMicrosocks(), startDante({ udp: true })]);
    const proxies: Record<Routed, UpstreamProxy> = { dante, ms, doomed };
    const [echo, other] = await Promise.all([startUdpEcho(), startUdpEcho({ answer: (d) => Buffer.from(d.toString().toUpperCase()) })]);
    const stateDir = tempDir();
    const config = {
      ...e2eConfig({ stateDir, inbounds: ROUTED.map((tag) => ({ type: 'socks', tag: `in-${tag}`, listen: '127.0.0.1', port: 0 })) }),
      outbounds: [{ type: 'direct', tag: 'direct' }, ...ROUTED.map((tag) => hopOutbound(tag, proxies[tag]))],
      route: { mode: 'rule', rules: ROUTED.map((tag) => ({ inbound: [`in-${tag}`], outbound: tag })), final: 'direct' },
    };
    const node = await startNode(config);
    return { node, proxies, echo, other, events: eventsPath(stateDir) };
  },
  async ({ node, proxies, echo, other }) => {
    await node.stop();
    await Promise.all([echo.close(), other.close(), ...Object.values(proxies).map((p) => p.stop())]);
  },
);

function route(via: Routed) {
  return { target: via, matched_rule: { index: ROUTED.indexOf(via), condition: `inbound=in-${via}` }, selection_chain: [via] };
}

test('the spec client speaks UDP ASSOCIATE with Dante itself', async () => {
  const { proxies, echo } = await setup();
  const a = await associate({ host: '127.0.0.1', port: proxies.dante.port }, { timeoutMs: WAIT_MS });
  const target = { host: '127.0.0.1', port: echo.port };
  a.send(target, Buffer.from('straight to dante'));
  assert.equal(await a.receive(), { source: target, data: Buffer.from('straight to dante') }, proxies.dante.output());
  assert.is(echo.sources[echo.sources.length - 1]!.split(':')[0], '127.0.0.1');
  await a.close();
});

test('relays through Dante as a socks outbound: chained_relayed, relay chain, exact counters', async () => {
  const { node, proxies, echo, other, events } = await setup();
  const known = knownFlows(events);
  const before = udpStatsNow(events);
  const a = await associate({ host: '127.0.0.1', port: node.ports['in-dante']! }, { timeoutMs: WAIT_MS });
  const target = { host: '127.0.0.1', port: echo.port };
  const second = { host: '127.0.0.1', port: other.port };
  a.send(target, Buffer.from('through dante'));
  assert.equal(await a.receive(), { source: target, data: Buffer.from('through dante') }, proxies.dante.output());
  a.send(second, Buffer.from('shout'));
  assert.equal(await a.receive(), { source: second, data: Buffer.from('SHOUT') });
  a.send(target, Buffer.alloc(1000, 1));
  assert.equal((await a.receive()).data.length, 1000);
  await a.close();
  const flow = await nextFlow(events, known, WAIT_MS);
  assertUdpFlow(flow, {
    inbound: { tag: 'in-dante', protocol: 'socks' },
    target,
    route: route('dante'),
    outbound: { tag: 'dante', protocol: 'socks' },
    relay_chain: [relayHop('dante', proxies.dante)],
    outcome: 'chained_relayed',
    traffic: udpTraffic([13, 5, 1000], [13, 5, 1000], 'hop'),
  });
  const delta = udpDelta(before, await udpStatsAfter(events, flow.flowId));
  assert.equal(delta, moved({ created_associations: 1, reused_associations: 1, closed_associations: 1, packets_sent: 3, packets_received: 3 }));
});

test('fails the association on a hop without UDP ASSOCIATE (microsocks): HOP_REJECTED', async () => {
  const { node, proxies, echo, events } = await setup();
  const known = knownFlows(events);
  const before = udpStatsNow(events);
  const a = await associate({ host: '127.0.0.1', port: node.ports['in-ms']! }, { timeoutMs: WAIT_MS });
  const target = { host: '127.0.0.1', port: echo.port };
  a.send(target, Buffer.from('nowhere'));
  await settlesBeforeFar(a.controlClosed, 'the end of the association');
  const flow = await nextFlow(events, known, WAIT_MS);
  assertUdpFlow(flow, {
    inbound: { tag: 'in-ms', protocol: 'socks' },
    target,
    route: route('ms'),
    outcome: 'failed',
    close_reason: 'upstream_error',
    failure: { stage: 'hop:ms', code: 'HOP_REJECTED', remote: { host: '127.0.0.1', port: proxies.ms.port } },
    // Never relayed: only the client's side counts, its control exchange and the datagram it sent.
    traffic: { ...udpTraffic([], [], 'direct'), inbound_rx_bytes: 3 + 10 + IPV4_HEADER + 'nowhere'.length },
  });
  const delta = udpDelta(before, await udpStatsAfter(events, flow.flowId));
  assert.equal(delta, moved({ failed_association_attempts: 1 }));
  await a.close();
});

test('fails the flow with upstream_error when the hop goes away mid-association', async () => {
  const { node, proxies, echo, events } = await setup();
  const known = knownFlows(events);
  const before = udpStatsNow(events);
  const a = await associate({ host: '127.0.0.1', port: node.ports['in-doomed']! }, { timeoutMs: WAIT_MS });
  const target = { host: '127.0.0.1', port: echo.port };
  a.send(target, Buffer.from('last words'));
  assert.equal(await a.receive(), { source: target, data: Buffer.from('last words') }, 'relayed while the hop was up');
  await proxies.doomed.stop();
  await settlesBeforeFar(a.controlClosed, 'the end of the association');
  const flow = await nextFlow(events, known, WAIT_MS);
  assertUdpFlow(flow, {
    inbound: { tag: 'in-doomed', protocol: 'socks' },
    target,
    route: route('doomed'),
    outbound: { tag: 'doomed', protocol: 'socks' },
    relay_chain: [relayHop('doomed', proxies.doomed)],
    outcome: 'failed',
    close_reason: 'upstream_error',
    failure: { stage: 'relay', code: 'UPSTREAM_RESET', remote: { host: '127.0.0.1', port: proxies.doomed.port } },
    traffic: udpTraffic([10], [10], 'hop'),
  });
  const delta = udpDelta(before, await udpStatsAfter(events, flow.flowId));
  assert.equal(delta, moved({ created_associations: 1, closed_associations: 1, dropped_associations: 1, packets_sent: 1, packets_received: 1 }));
  await a.close();
});

test('every flow of the sink file is complete and the node stops cleanly', async () => {
  const { node, events } = await setup();
  await stopAndAudit(node, events);
});

test.run();
