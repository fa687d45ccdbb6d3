import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { curl } from '../support/curl.js';
import { assertDirectDownload } from '../support/direct-download.js';
import { recordOf } from '../support/flow-expect.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { proxyFixture } from '../support/proxy-fixture.js';

const INBOUND = { tag: 'socks-in', protocol: 'socks' };

const setup = proxyFixture(test, { inbounds: [{ type: 'socks', tag: INBOUND.tag }] });

test('relays a curl download through SOCKS5 without auth as one direct_relayed flow', async () => {
  const { origin, events, proxy } = await setup();
  await assertDirectDownload(origin, events, { via: ['--socks5-hostname', proxy(INBOUND.tag)], inbound: INBOUND, bytes: 4321, label: 'socks5-noauth' });
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
