import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { curl } from '../support/curl.js';
import { DIRECT, FINAL_DIRECT, NO_AUTH, assertFlow, recordOf } from '../support/flow-expect.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { closedConnection } from '../support/origin.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { assertDirectBytes } from '../support/relay-bytes.js';

const INBOUND = { tag: 'socks-in', protocol: 'socks' };

const setup = proxyFixture(test, { inbounds: [{ type: 'socks', tag: INBOUND.tag }] });

test('relays a curl download through SOCKS5 without auth as one direct_relayed flow', async () => {
  const { origin, events, proxy } = await setup();
  const known = knownFlows(events);
  const path = '/bytes/4321?case=socks5-noauth';
  const res = await curl(['--socks5-hostname', proxy(INBOUND.tag), origin.url(path)]);
  assert.is(res.code, 0, res.stderr);
  assert.is(res.body.length, 4321);

  const flow = await nextFlow(events, known);
  assertFlow(flow, {
    inbound: INBOUND,
    auth: NO_AUTH,
    target: { host: '127.0.0.1', port: origin.port },
    route: FINAL_DIRECT,
    outbound: DIRECT,
    outcome: 'direct_relayed',
  });
  assertDirectBytes(recordOf(flow.completed), await closedConnection(origin, path));
});

test('gives each SOCKS5 connection its own flow', async () => {
  const { origin, events, proxy } = await setup();
  const known = knownFlows(events);
  const first = await curl(['--socks5-hostname', proxy(INBOUND.tag), origin.url('/bytes/10?case=first')]);
  assert.is(first.code, 0, first.stderr);
  const a = await nextFlow(events, known);
  const second = await curl(['--socks5-hostname', proxy(INBOUND.tag), origin.url('/bytes/20?case=second')]);
  assert.is(second.code, 0, second.stderr);
  const b = await nextFlow(events, new Set([...known, a.flowId]));
  assert.is.not(a.flowId, b.flowId);
  assert.is.not(recordOf(b.completed).source!.port, recordOf(a.completed).source!.port, 'two client connections');
});

test('writes a sink file of valid envelopes with every flow complete', async () => {
  const { node, events } = await setup();
  await stopAndAudit(node, events);
});

test.run();
