import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { recordOf } from '../support/flow-expect.js';
import { knownFlows, nextFlows } from '../support/flow-lifecycle.js';
import { freePort } from '../support/free-port.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { startSlowHop } from '../support/slow-hop.js';
import { proxyGet, WireClient } from './support-http-wire.js';

/**
 * On a pipelined HTTP connection the flows share what the client received, each its own
 * answer, also when one of them fails late while the answer after it is already queued
 * (Node starts a queued answer as the one ahead of it finishes).
 */
const HTTP = { tag: 'http-in', protocol: 'http' };

const hop = startSlowHop(null);
const stuckPort = freePort();

const setup = proxyFixture(test, {
  inbounds: [{ type: 'http', tag: HTTP.tag }],
  outbounds: [{ type: 'http', tag: 'stuck-hop', server: '127.0.0.1', port: (await hop).port }],
  rules: [{ port: [await stuckPort], outbound: 'stuck-hop' }],
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

test.run();
