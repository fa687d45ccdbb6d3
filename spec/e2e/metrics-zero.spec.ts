import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { E2E_API_KEY } from '../support/node-config.js';
import { promtool } from '../support/prometheus.js';
import { proxyFixture } from '../support/proxy-fixture.js';

// The first scrape of a node no flow has passed through, as a Grafana panel meets it.

const setup = proxyFixture(test, {
  inbounds: [{ type: 'mixed', tag: 'mixed-in' }],
  outbounds: [{ type: 'selector', tag: 'proxy', members: ['direct', 'block'], default: 'direct' }],
});

test('with no flow open weir_flows_active is 0 per inbound and leaf outbound; no NaN; promtool passes', async () => {
  const { node } = await setup();
  const scrape = async (): Promise<string> => {
    const res = await fetch(`${node.controlUrl()}/metrics`, { headers: { authorization: `Bearer ${E2E_API_KEY}` }, signal: AbortSignal.timeout(10_000) });
    const text = await res.text();
    assert.is(res.status, 200, text);
    return text;
  };
  // Scrapes close together: the event loop's delay histogram has no sample between them.
  const texts = await Promise.all([scrape(), scrape(), scrape(), scrape()]);
  const text = texts.join('');
  assert.equal(text.split('\n').filter((l) => !l.startsWith('#') && /\s(NaN|Nan|nan)$/.test(l)), [], 'samples without a number');
  const mins = text.split('\n').filter((l) => l.startsWith('nodejs_eventloop_lag_min_seconds ')).map((l) => Number(l.split(' ')[1]));
  assert.ok(mins.every((m) => m < 60), `an empty window's min: ${mins.join(', ')}`);
  const active = texts[0]!.split('\n').filter((l) => l.startsWith('weir_flows_active'));
  assert.equal(active.sort(), ['weir_flows_active{inbound="mixed-in",outbound="block"} 0', 'weir_flows_active{inbound="mixed-in",outbound="direct"} 0']);
  const checked = await promtool(texts[0]!);
  assert.is(checked.code, 0, checked.output);
});

test.run();
