import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { curl } from '../support/curl.js';
import { DIRECT, FINAL_DIRECT, NO_AUTH, assertFlow, recordOf } from '../support/flow-expect.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { closedConnection } from '../support/origin.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { assertDirectBytes } from '../support/relay-bytes.js';

const INBOUND = { tag: 'mixed-in', protocol: 'mixed' };

const setup = proxyFixture(test, { inbounds: [{ type: 'mixed', tag: INBOUND.tag }] });

const CASES = [
  { name: 'SOCKS5', args: (proxy: string) => ['--socks5-hostname', proxy], mode: 'tunnel' },
  { name: 'plain HTTP', args: (proxy: string) => ['-x', `http://${proxy}`], mode: 'forward' },
  { name: 'HTTP CONNECT', args: (proxy: string) => ['-p', '-x', `http://${proxy}`], mode: 'tunnel' },
] as const;

for (const c of CASES) {
  test(`serves ${c.name} on the mixed port as a flow of the mixed inbound`, async () => {
    const { origin, events, proxy } = await setup();
    const known = knownFlows(events);
    const path = `/bytes/1500?case=mixed-${c.name.replace(/ /g, '-')}`;
    const res = await curl([...c.args(proxy(INBOUND.tag)), origin.url(path)]);
    assert.is(res.code, 0, res.stderr);
    assert.is(res.body.length, 1500);

    const flow = await nextFlow(events, known);
    assertFlow(flow, {
      inbound: INBOUND,
      auth: NO_AUTH,
      target: { host: '127.0.0.1', port: origin.port },
      route: FINAL_DIRECT,
      outbound: DIRECT,
      outcome: 'direct_relayed',
    });
    assertDirectBytes(recordOf(flow.completed), await closedConnection(origin, path), c.mode);
  });
}

test('writes a sink file of valid envelopes with every flow complete', async () => {
  const { node, events } = await setup();
  await stopAndAudit(node, events);
});

test.run();
