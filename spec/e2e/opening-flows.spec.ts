import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { CURL_TIMED_OUT, curl } from '../support/curl.js';
import { FAR_MS, WAIT_MS } from '../support/far-bound.js';
import type { TagProtocol } from '../../streams/contract.js';
import { assertFlow, NO_AUTH, recordOf, type FlowExpectation } from '../support/flow-expect.js';
import { knownFlows, lifecycleOf, nextFlow } from '../support/flow-lifecycle.js';
import { waitForEvents } from '../support/jsonl.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { rawExchange } from '../support/raw-client.js';
import { associate } from '../support/socks5-udp-client.js';
import { startSlowHop } from '../support/slow-hop.js';
import { runWeir } from '../support/weir-bin.js';
import { assertUdpFlow, IPV4_HEADER, udpTraffic } from '../support/udp-expect.js';

// Flows whose dial is still pending: through a hop that never answers (`stall`), or one
// that answers after a while (`slow`). Dials have no deadline of their own here.
const stall = await startSlowHop(null);
const slow = await startSlowHop(1500);
const SOCKS = { tag: 'socks-in', protocol: 'socks' };
const HTTP = { tag: 'http-in', protocol: 'http' };
const CONNECT = { tag: 'connect-in', protocol: 'http' };
const UDP = { tag: 'udp-in', protocol: 'socks' };
const setup = proxyFixture(test, {
  inbounds: [
    { type: 'socks', tag: SOCKS.tag },
    { type: 'http', tag: HTTP.tag },
    { type: 'http', tag: CONNECT.tag },
    { type: 'socks', tag: UDP.tag },
  ],
  outbounds: [
    { type: 'http', tag: 'stall', server: '127.0.0.1', port: stall.port },
    { type: 'http', tag: 'slow', server: '127.0.0.1', port: slow.port },
    // A UDP association's upstream is the hop's own UDP ASSOCIATE, which `stall` never answers.
    { type: 'socks', tag: 'stall-socks', server: '127.0.0.1', port: stall.port },
  ],
  rules: [
    { inbound: [SOCKS.tag], outbound: 'stall' },
    { inbound: [HTTP.tag], outbound: 'stall' },
    { inbound: [CONNECT.tag], outbound: 'slow' },
    { inbound: [UDP.tag], outbound: 'stall-socks' },
  ],
  flows: { connect_timeout_ms: FAR_MS },
});
test.after(() => {
  stall.close();
  slow.close();
});

/** The flow_id of the next flow.started not in `known`: a connection whose flow is opening. */
async function nextStartedFlowId(events: string, known: ReadonlySet<string>): Promise<string> {
  const isNew = (e: { event_type: string; payload: Record<string, unknown> }): boolean =>
    e.event_type === 'flow.started' && !known.has(String(e.payload['flow_id']));
  const all = await waitForEvents(events, (es) => es.some(isNew), WAIT_MS, 'a new flow.started');
  return String(all.find(isNew)!.payload['flow_id']);
}

test('flows close of a flow still dialling ends it at once: cancelled / manual, and curl is refused', async () => {
  const { origin, node, events, proxy } = await setup();
  const known = knownFlows(events);
  const download = curl(['--socks5', proxy(SOCKS.tag), origin.url('/bytes/10?case=close-opening')]);
  const flowId = await nextStartedFlowId(events, known);
  const close = await runWeir(['flows', 'close', flowId, '-c', node.configPath]);
  assert.equal([close.code, close.stdout], [0, `closing flow ${flowId}\n`]);
  const res = await download;
  assert.is.not(res.code, 0, 'curl is told the tunnel failed');
  assert.is.not(res.code, CURL_TIMED_OUT, 'refused by the close, not by curl --max-time');
  const flow = await nextFlow(events, known);
  assert.is(flow.flowId, flowId);
  assert.is(flow.routed, undefined, 'never routed');
  assert.is(flow.completed.payload['outcome'], 'cancelled');
  assert.is(flow.completed.payload['close_reason'], 'manual');
  assert.equal(recordOf(flow.completed).result, { outcome: 'cancelled', close_reason: 'manual', failure: null });
});

/** What a flow of `inbound` that its client left while it dialled through `stall` completes with: it never carried anything. */
function leftWhileDialling(inbound: TagProtocol, port: number, rule: number): FlowExpectation {
  return {
    inbound,
    auth: NO_AUTH,
    target: { host: '127.0.0.1', port },
    route: { target: 'stall', matched_rule: { index: rule, condition: `inbound=${inbound.tag}` } },
    outcome: 'cancelled',
  };
}

test('an HTTP client that gives up while its flow dials ends it at once: cancelled, no close_reason', async () => {
  const { origin, events, proxy } = await setup();
  const known = knownFlows(events);
  const res = await curl(['-x', `http://${proxy(HTTP.tag)}`, origin.url('/bytes/10?case=abandoned')], 300);
  assert.is(res.code, CURL_TIMED_OUT, 'curl gave up while the hop kept the dial pending');
  // Before, the flow waited out the connect timeout (FAR_MS here) and then failed DIAL_TIMEOUT.
  const flow = await nextFlow(events, known);
  assertFlow(flow, leftWhileDialling(HTTP, origin.port, 1));
  const traffic = recordOf(flow.completed).traffic;
  assert.equal([traffic.bytes_up, traffic.bytes_down, traffic.outbound_rx_bytes, traffic.outbound_tx_bytes], [0, 0, 0, 0]);
});

for (const [inbound, rule, request] of [
  [SOCKS, 0, (port: number) => Buffer.from([5, 1, 0, 5, 1, 0, 1, 127, 0, 0, 1, port >> 8, port & 0xff])],
  [HTTP, 1, (port: number) => Buffer.from(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`)],
] as const) {
  test(`a ${inbound.tag} tunnel client that resets while its flow dials ends it at once: cancelled, no close_reason`, async () => {
    const { origin, events, proxy } = await setup();
    const known = knownFlows(events);
    const [host, port] = proxy(inbound.tag).split(':');
    const client = net.connect(Number(port), host!);
    client.on('error', () => undefined);
    client.write(request(origin.port));
    await nextStartedFlowId(events, known);
    client.resetAndDestroy();
    assertFlow(await nextFlow(events, known), leftWhileDialling(inbound, origin.port, rule));
  });
}

test('a UDP association whose client ends it while its flow opens upstream ends the flow at once: cancelled, no close_reason', async () => {
  const { events, proxy } = await setup();
  const known = knownFlows(events);
  const [host, port] = proxy(UDP.tag).split(':');
  const association = await associate({ host: host!, port: Number(port) });
  const target = { host: '127.0.0.1', port: 9 };
  association.send(target, Buffer.from('hello'));
  await nextStartedFlowId(events, known);
  await association.close();
  assertUdpFlow(await nextFlow(events, known), {
    inbound: UDP,
    target,
    route: { target: 'stall-socks', matched_rule: { index: 3, condition: `inbound=${UDP.tag}` }, selection_chain: ['stall-socks'] },
    outcome: 'cancelled',
    // The control exchange and the one datagram held while the upstream opened.
    traffic: { ...udpTraffic([], [], 'direct'), inbound_rx_bytes: 3 + 10 + IPV4_HEADER + 'hello'.length },
  });
});

test('a tunnel client that half-closes while its flow dials has not gone: what it sent goes through once the hop answers', async () => {
  const { events, proxy } = await setup();
  // Answers what it got once the client's FIN reaches it.
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    const got: Buffer[] = [];
    socket.on('data', (d: Buffer) => got.push(d));
    socket.on('end', () => socket.end(`got ${Buffer.concat(got).toString()}`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  try {
    const known = knownFlows(events);
    const request = `CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\nhello`;
    const res = await rawExchange(Number(proxy(CONNECT.tag).split(':')[1]), Buffer.from(request), { end: true });
    assert.is(res.data.toString(), 'HTTP/1.1 200 Connection Established\r\n\r\ngot hello');
    const record = recordOf((await nextFlow(events, known)).completed);
    assert.equal(record.result, { outcome: 'chained_relayed', close_reason: null, failure: null });
    assert.equal([record.traffic.bytes_up, record.traffic.bytes_down], [5, 9]);
  } finally {
    server.close();
  }
});

test('SIGTERM while a flow dials: it completes as cancelled before engine.stopped, and weir exits 0', async () => {
  const { origin, node, events, proxy } = await setup();
  const known = knownFlows(events);
  const pending = curl(['--socks5', proxy(SOCKS.tag), origin.url('/bytes/10?case=shutdown-opening')]);
  const flowId = await nextStartedFlowId(events, known);
  const all = await stopAndAudit(node, events);
  assert.is.not((await pending).code, 0);
  const flow = lifecycleOf(all, flowId);
  assert.is(flow.routed, undefined);
  assert.equal(recordOf(flow.completed).result, { outcome: 'cancelled', close_reason: null, failure: null });
  assert.is('close_reason' in flow.completed.payload, false, 'no close_reason: the node stopped');
  const stopped = all.at(-1)!;
  assert.is(stopped.event_type, 'engine.stopped');
  assert.ok(flow.completed.sequence < stopped.sequence, 'the flow completed before engine.stopped');
});

test.run();
