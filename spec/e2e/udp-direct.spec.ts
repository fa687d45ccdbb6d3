import { test } from 'uvu';
import type { TagProtocol } from '../../streams/contract.js';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { settlesBeforeFar, WAIT_MS } from '../support/far-bound.js';
import { DIRECT, FINAL_DIRECT, recordOf } from '../support/flow-expect.js';
import { knownFlows, nextFlow, type FlowLifecycle } from '../support/flow-lifecycle.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { associate, Socks5ReplyError } from '../support/socks5-udp-client.js';
import { encodeUdpHeader } from '../../actors/socks5/socks5-wire.js';
import { waitFor } from '../support/wait-for.js';
import { startUdpEcho, type UdpEcho } from '../unit/udp/udp-echo.js';
import { assertUdpFlow, IPV4_HEADER, moved, type UdpFlowExpectation, udpDelta, udpStatsAfter, udpStatsNow, udpTraffic } from '../support/udp-expect.js';

const SOCKS = { tag: 'udp-socks', protocol: 'socks' };
const MIXED = { tag: 'udp-mixed', protocol: 'mixed' };
const REFUSED = { tag: 'udp-refused', protocol: 'socks' };
/** An inbound whose rules keep UDP off this host, as an operator writes them. */
const GUARDED = { tag: 'udp-guarded', protocol: 'socks' };
const IDLE_S = 2;

const setup = proxyFixture(test, {
  inbounds: [{ type: 'socks', tag: SOCKS.tag }, { type: 'mixed', tag: MIXED.tag }, { type: 'socks', tag: REFUSED.tag }, { type: 'socks', tag: GUARDED.tag }],
  rules: [
    { inbound: [REFUSED.tag], network: ['udp'], outbound: 'block' },
    { inbound: [GUARDED.tag], ip_cidr: ['127.0.0.0/8', '::1/128'], outbound: 'block' },
  ],
  flows: { idle_timeout_s: IDLE_S },
});

let echo: UdpEcho | null = null;
/** A UDP echo on 127.0.0.1 that answers each datagram with its bytes twice. */
async function echoServer(): Promise<UdpEcho> {
  echo ??= await startUdpEcho({ answer: (data) => Buffer.concat([data, data]) });
  return echo;
}

/** An association through `inbound`, the echo as its target, and what the sink held before it. */
async function echoAssociation(inbound: TagProtocol) {
  const { node, events } = await setup();
  const server = await echoServer();
  const known = knownFlows(events);
  const before = udpStatsNow(events);
  const a = await associate({ host: '127.0.0.1', port: node.ports[inbound.tag]! }, { timeoutMs: WAIT_MS });
  return { events, known, before, a, target: { host: '127.0.0.1', port: server.port } };
}

/** A flow relayed direct to the echo (routed by final) with these counters. */
function assertEchoFlow(flow: FlowLifecycle, expect: Pick<UdpFlowExpectation, 'inbound' | 'target' | 'traffic' | 'close_reason'>): void {
  assertUdpFlow(flow, { ...expect, route: { ...FINAL_DIRECT, selection_chain: ['direct'] }, outbound: DIRECT, outcome: 'direct_relayed' });
}

async function relayThrough(inbound: TagProtocol, sizes: number[]): Promise<void> {
  const { events, known, before, a, target } = await echoAssociation(inbound);
  for (const [i, size] of sizes.entries()) {
    const payload = Buffer.alloc(size, 97 + i);
    a.send(target, payload);
    // One at a time: the order of answers is then the order of questions.
    assert.equal(await a.receive(), { source: target, data: Buffer.concat([payload, payload]) });
  }
  await a.close();
  const flow = await nextFlow(events, known, WAIT_MS);
  assertEchoFlow(flow, { inbound, target, traffic: udpTraffic(sizes, sizes.map((n) => 2 * n), 'direct') });
  assert.is(recordOf(flow.routed!).target.resolved_ip, '127.0.0.1');
  const delta = udpDelta(before, await udpStatsAfter(events, flow.flowId));
  assert.equal(delta, moved({ created_associations: 1, closed_associations: 1, packets_sent: sizes.length, packets_received: sizes.length }));
}

test('relays datagrams direct over a socks inbound as one udp flow with exact counters', async () => {
  await relayThrough(SOCKS, [5, 1200, 64]);
});

test('relays datagrams over a mixed inbound too', async () => {
  await relayThrough(MIXED, [300]);
});

test('does not count a datagram whose destination name does not resolve as sent', async () => {
  const { events, known, before, a, target } = await echoAssociation(SOCKS);
  const nowhere = { host: 'no-such-host.invalid', port: 53 };
  a.send(target, Buffer.from('first'));
  assert.equal(await a.receive(), { source: target, data: Buffer.from('firstfirst') });
  a.send(nowhere, Buffer.from('lost'));
  await waitFor(() => udpDelta(before, udpStatsNow(events)).send_failures === 1, WAIT_MS, 'the failed lookup in stats.sampled');
  a.send(target, Buffer.from('second!'));
  assert.equal(await a.receive(), { source: target, data: Buffer.from('second!second!') });
  await a.close();

  const flow = await nextFlow(events, known, WAIT_MS);
  const relayed = udpTraffic([5, 7], [10, 14], 'direct');
  // The client's datagram reached the relay: it counts on the inbound side only.
  const lostFramed = encodeUdpHeader(nowhere).length + 'lost'.length;
  assertEchoFlow(flow, { inbound: SOCKS, target, traffic: { ...relayed, inbound_rx_bytes: relayed.inbound_rx_bytes + lostFramed } });
  const delta = udpDelta(before, await udpStatsAfter(events, flow.flowId));
  assert.equal(
    delta,
    moved({ created_associations: 1, closed_associations: 1, packets_sent: 2, packets_received: 2, send_failures: 1, reused_associations: 1 }),
  );
});

test('does not count an answer the relay could not send to the client as relayed', async () => {
  const { events, known, before, a, target } = await echoAssociation(SOCKS);
  // The echo answers 65500 bytes: framed for the client (a 10-byte header) it is too large for a datagram.
  const size = 32_750;
  a.send(target, Buffer.alloc(size, 1));
  await waitFor(() => udpDelta(before, udpStatsNow(events)).recv_failures === 1, WAIT_MS, 'the refused answer in stats.sampled');
  await a.close();

  const flow = await nextFlow(events, known, WAIT_MS);
  const sentOnly = udpTraffic([size], [], 'direct');
  assertEchoFlow(flow, { inbound: SOCKS, target, traffic: { ...sentOnly, outbound_rx_bytes: 2 * size } });
  const delta = udpDelta(before, await udpStatsAfter(events, flow.flowId));
  assert.equal(delta, moved({ created_associations: 1, closed_associations: 1, packets_sent: 1, recv_failures: 1 }));
});

test('refuses UDP ASSOCIATE with REP 2 when a rule blocks UDP on the inbound, as a blocked udp flow', async () => {
  const { node, events } = await setup();
  const known = knownFlows(events);
  const refused = await associate({ host: '127.0.0.1', port: node.ports[REFUSED.tag]! }, { timeoutMs: WAIT_MS }).then(
    () => null,
    (err: unknown) => err,
  );
  assert.instance(refused, Socks5ReplyError);
  assert.is((refused as Socks5ReplyError).rep, 2);
  const flow = await nextFlow(events, known, WAIT_MS);
  assertUdpFlow(flow, {
    inbound: REFUSED,
    target: { host: '0.0.0.0', port: 0 },
    route: { target: 'block', matched_rule: { index: 0, condition: `network=udp && inbound=${REFUSED.tag}` }, selection_chain: ['block'] },
    outcome: 'blocked',
    // Refused before any relay existed: nothing is metered.
    traffic: { ...udpTraffic([], [], 'direct'), inbound_rx_bytes: 0, inbound_tx_bytes: 0 },
  });
});

test('a first datagram to the unspecified address, which a send takes for this host, fails TARGET_INVALID past the loopback rules', async () => {
  const { events, known, before, a, target } = await echoAssociation(GUARDED);
  const unspecified = { host: '0.0.0.0', port: target.port };
  const heard = echo!.sources.length;
  a.send(unspecified, Buffer.from('here?'));
  await settlesBeforeFar(a.controlClosed, 'the end of the association');
  const flow = await nextFlow(events, known, WAIT_MS);
  assertUdpFlow(flow, {
    inbound: GUARDED,
    target: unspecified,
    route: { ...FINAL_DIRECT, selection_chain: ['direct'] },
    outcome: 'failed',
    close_reason: 'upstream_error',
    failure: { stage: 'connect', code: 'TARGET_INVALID', remote: unspecified },
    traffic: { ...udpTraffic([], [], 'direct'), inbound_rx_bytes: 3 + 10 + IPV4_HEADER + 5 },
  });
  assert.is(echo!.sources.length, heard, 'the echo on 127.0.0.1 got nothing');
  const delta = udpDelta(before, await udpStatsAfter(events, flow.flowId));
  assert.equal(delta, moved({ failed_association_attempts: 1 }));
  await a.close();
});

test('later datagrams to the unspecified address or port 0 are send failures, and the node goes on', async () => {
  const { events, known, before, a, target } = await echoAssociation(SOCKS);
  a.send(target, Buffer.from('one'));
  assert.equal(await a.receive(), { source: target, data: Buffer.from('oneone') });
  const lost = [{ host: '0.0.0.0', port: target.port }, { host: '127.0.0.1', port: 0 }];
  for (const to of lost) a.send(to, Buffer.from('lost'));
  a.send(target, Buffer.from('two'));
  assert.equal(await a.receive(), { source: target, data: Buffer.from('twotwo') });
  await a.close();

  const flow = await nextFlow(events, known, WAIT_MS);
  const relayed = udpTraffic([3, 3], [6, 6], 'direct');
  // They reached the relay: they count on the inbound side only.
  assertEchoFlow(flow, { inbound: SOCKS, target, traffic: { ...relayed, inbound_rx_bytes: relayed.inbound_rx_bytes + 2 * (IPV4_HEADER + 4) } });
  const delta = udpDelta(before, await udpStatsAfter(events, flow.flowId));
  assert.equal(delta, moved({ created_associations: 1, closed_associations: 1, packets_sent: 2, packets_received: 2, send_failures: 2 }));
});

test('closes an association idle for flows.idle_timeout_s with idle_timeout', async () => {
  const { events, known, before, a, target } = await echoAssociation(SOCKS);
  a.send(target, Buffer.from('once'));
  assert.equal(await a.receive(), { source: target, data: Buffer.from('onceonce') }, 'the echo answers each datagram twice');
  await settlesBeforeFar(a.controlClosed, 'the end of the association');
  const flow = await nextFlow(events, known, WAIT_MS);
  assertEchoFlow(flow, { inbound: SOCKS, target, close_reason: 'idle_timeout', traffic: udpTraffic([4], [8], 'direct') });
  const timing = recordOf(flow.completed).timing;
  assert.ok(timing.ended_at_unix_ms! - timing.last_activity_at_unix_ms >= IDLE_S * 1000, 'not closed before the idle timeout');
  const delta = udpDelta(before, await udpStatsAfter(events, flow.flowId));
  assert.equal(delta, moved({ created_associations: 1, closed_associations: 1, idle_timeouts: 1, packets_sent: 1, packets_received: 1 }));
  await a.close();
});

test('every flow of the sink file is complete and the node stops cleanly', async () => {
  const { node, events } = await setup();
  await stopAndAudit(node, events);
  await echo?.close();
});

test.run();
