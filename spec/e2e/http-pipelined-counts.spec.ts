import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { recordOf } from '../support/flow-expect.js';
import { knownFlows, nextFlows } from '../support/flow-lifecycle.js';
import { freePort } from '../support/free-port.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { startSlowHop } from '../support/slow-hop.js';
import { proxyGet, WireClient } from '../support/wire-client.js';

/**
 * On a pipelined HTTP connection the flows share what the client received, each its own
 * answer, also when one of them fails late while the answer after it is already queued
 * (Node starts a queued answer as the one ahead of it finishes), when an answer is whole
 * and waiting before the one ahead of it ends (Node writes it out before that one's
 * close, where its flow completes), and when a request is blocked while queued.
 */
const HTTP = { tag: 'http-in', protocol: 'http' };

const hop = startSlowHop(null);
const stuckPort = freePort();

const setup = proxyFixture(test, {
  inbounds: [{ type: 'http', tag: HTTP.tag }],
  outbounds: [{ type: 'http', tag: 'stuck-hop', server: '127.0.0.1', port: (await hop).port }],
  rules: [
    { port: [await stuckPort], outbound: 'stuck-hop' },
    { domain_suffix: ['blocked.test'], outbound: 'block' },
  ],
  flows: { connect_timeout_ms: 1000 },
});

test('the flows of a pipelined connection share what the client received when one of them fails late', async () => {
  const { origin, events, proxy } = await setup();
  const known = knownFlows(events);
  const wire = await WireClient.open(proxy(HTTP.tag));
  const client = await wire.last(
    proxyGet(origin.url('/bytes/100?case=pipelined-fail-1')) +
      proxyGet(`http://127.0.0.1:${await stuckPort}/never`) +
      proxyGet(origin.url('/bytes/300?case=pipelined-fail-3'), { close: true }),
  );
  const records = (await nextFlows(events, known, 3)).map((f) => recordOf(f.completed));
  (await hop).close();
  assert.equal(records.map((r) => r.result?.outcome), ['direct_relayed', 'failed', 'direct_relayed']);
  const tx = records.map((r) => r.traffic.inbound_tx_bytes);
  assert.is(tx.reduce((a, b) => a + b, 0), client.received, `inbound_tx_bytes ${tx.join(' + ')} vs ${client.received} received`);
  assert.ok(records[2]!.traffic.inbound_tx_bytes > 300, 'the last flow counts its own answer to the client');
});

/** 4 chunks of 1000 bytes, 150 ms apart: the requests behind it are answered meanwhile and wait. */
const TRICKLE = '/trickle?chunks=4&size=1000&every_ms=150';

test('each flow of a pipelined connection counts its own answer when the answers behind it wait whole', async () => {
  const { origin, events, proxy } = await setup();
  const known = knownFlows(events);
  const wire = await WireClient.open(proxy(HTTP.tag));
  const client = await wire.last(
    proxyGet(origin.url(`${TRICKLE}&case=waiting-behind`)) +
      proxyGet(origin.url('/bytes/200?case=waiting-behind-2')) +
      proxyGet(origin.url('/bytes/300?case=waiting-behind-3'), { close: true }),
  );
  const records = (await nextFlows(events, known, 3)).map((f) => recordOf(f.completed));
  assert.equal(
    records.map((r) => r.traffic.inbound_tx_bytes),
    wire.answerLengths(),
    'inbound_tx_bytes of each flow is its answer on the wire',
  );
  assert.is(records.reduce((n, r) => n + r.traffic.inbound_rx_bytes, 0), client.sent, 'the flows share what the client sent');
});

test('a request blocked while queued behind an answer under way counts no byte of that answer', async () => {
  const { origin, events, proxy } = await setup();
  const known = knownFlows(events);
  const wire = await WireClient.open(proxy(HTTP.tag));
  const client = await wire.last(
    proxyGet(origin.url(`${TRICKLE}&case=blocked-behind`)) +
      proxyGet('http://queued.blocked.test/') +
      proxyGet(origin.url('/bytes/300?case=blocked-behind-3'), { close: true }),
  );
  const records = (await nextFlows(events, known, 3)).map((f) => recordOf(f.completed));
  assert.equal(records.map((r) => r.result?.outcome), ['direct_relayed', 'blocked', 'direct_relayed']);
  const [trickled, , last] = wire.answerLengths();
  const tx = records.map((r) => r.traffic.inbound_tx_bytes);
  assert.is(tx[0], trickled, 'the answer under way counts in its own flow only');
  assert.is(tx[2], last, 'the answer after the refusal counts in its own flow');
  assert.ok(tx[1]! <= client.received - trickled! - last!, `the blocked flow counts at most its refusal (${tx.join(' + ')} for ${client.received})`);
  const rx = records.reduce((n, r) => n + r.traffic.inbound_rx_bytes, 0);
  assert.ok(rx <= client.sent, `no byte the client sent counts twice (${rx} for ${client.sent})`);
});

test.run();
