import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowRecord } from '../../streams/contract.js';
import { curl } from '../support/curl.js';
import { WAIT_MS } from '../support/far-bound.js';
import { recordOf } from '../support/flow-expect.js';
import { freePort } from '../support/free-port.js';
import { ofType, readJsonl } from '../support/jsonl.js';
import { promtool, samples } from '../support/prometheus.js';
import { waitFor } from '../support/wait-for.js';
import { CLASH_KEY, clashFixture, type ClashSetup } from '../support/clash-fixture.js';
import { WsClient } from '../support/event-clients.js';
import { LineClient } from '../unit/ipc/line-client.js';

// GET /metrics of a real `weir run` under real traffic: Prometheus text that promtool
// accepts, with counters that agree with the flows' own records.
const setup = clashFixture(test);

async function scrape(s: ClashSetup): Promise<string> {
  const res = await s.call('/metrics');
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  return res.text;
}

test('GET /metrics needs the API key', async () => {
  const s = await setup();
  const refused = await s.call('/metrics', { key: null });
  assert.equal([refused.status, refused.json.code], [401, 'UNAUTHORIZED']);
  assert.is((await s.call('/metrics', { key: 'wrong-key-of-some-length' })).status, 401);
});

test('a scrape under load passes promtool, and its flow counters agree with the flow.completed records', async () => {
  const s = await setup();
  const closed = await freePort();
  // Relayed, blocked by the rule, and refused by a closed port: three outcomes, one failure code.
  const runs: Promise<unknown>[] = [];
  for (let i = 0; i < 6; i++) runs.push(curl([...s.via, s.origin.url(`/bytes/${1000 * (i + 1)}?case=metrics-${i}`)]));
  for (let i = 0; i < 3; i++) runs.push(curl([...s.via, `http://blocked.test/?case=metrics-blocked-${i}`]));
  for (let i = 0; i < 2; i++) runs.push(curl([...s.via, `http://127.0.0.1:${closed}/?case=metrics-refused-${i}`]));
  const live = s.liveDownload('metrics-live');
  // Scraped while the downloads and the live flow run, and checked as it is.
  await waitFor(async () => (await s.call('/connections')).json.connections.length > 0, WAIT_MS, 'a flow open');
  const underLoad = await scrape(s);
  const checked = await promtool(underLoad);
  assert.is(checked.code, 0, checked.output);
  assert.ok((samples(underLoad).get('weir_flows_active{inbound="mixed-in",outbound="direct"}') ?? 0) >= 1);
  await Promise.all(runs);
  live.stop();
  await live.done;

  // Once every flow has completed and reached the archive, the counters equal its records.
  const records = (): FlowRecord[] => ofType(readJsonl(s.events), 'flow.completed').map(recordOf);
  const started = (): number => ofType(readJsonl(s.events), 'flow.started').length;
  const settled = await waitFor(
    async () => {
      const scraped = samples(await scrape(s));
      return records().length === started() && scraped.get('weir_flows_started_total') === started() && (scraped.get('weir_flows_active{inbound="mixed-in",outbound="direct"}') ?? 0) === 0 ? scraped : null;
    },
    WAIT_MS,
    'every flow completed and archived',
  );
  const all = records();
  const expected = new Map<string, number>();
  for (const r of all) {
    const key = `weir_flows_completed_total{inbound="${r.inbound.tag}",outbound="${r.path.outbound?.tag ?? r.route.selection_chain.at(-1)}",outcome="${r.result!.outcome}"}`;
    expected.set(key, (expected.get(key) ?? 0) + 1);
  }
  const completed = new Map([...settled].filter(([k]) => k.startsWith('weir_flows_completed_total{')));
  assert.equal(Object.fromEntries(completed), Object.fromEntries(expected));
  assert.ok((expected.get('weir_flows_completed_total{inbound="mixed-in",outbound="block",outcome="blocked"}') ?? 0) >= 3);
  const refused = all.filter((r) => r.result?.failure?.code === 'DIAL_REFUSED').length;
  assert.ok(refused >= 2);
  assert.is(settled.get('weir_flow_failures_total{code="DIAL_REFUSED"}'), refused);
  const sum = (pick: (r: FlowRecord) => number): number => all.reduce((n, r) => n + pick(r), 0);
  assert.is(settled.get('weir_flow_bytes_total{direction="up"}'), sum((r) => r.traffic.bytes_up));
  assert.is(settled.get('weir_flow_bytes_total{direction="down"}'), sum((r) => r.traffic.bytes_down));
  assert.is(settled.get('weir_events_published_total{event_type="flow.completed"}'), all.length);
  assert.ok((settled.get('weir_sink_delivered_events_total{sink="archive",type="jsonl"}') ?? 0) > 0);
  assert.is(settled.get('weir_sink_replay_gaps_total{sink="archive",type="jsonl"}'), 0);
  assert.ok((settled.get('process_resident_memory_bytes') ?? 0) > 0);
});

test('live subscribers are counted by kind while they are open', async () => {
  const s = await setup();
  const kind = async (k: string): Promise<number | undefined> => samples(await scrape(s)).get(`weir_live_subscribers{kind="${k}"}`);
  const traffic = new WsClient(`ws://127.0.0.1:${s.controlPort}/traffic?token=${CLASH_KEY}`);
  const ipc = await LineClient.connect(path.join(s.node.stateDir, 'weir.sock'));
  try {
    ipc.send({ id: 1, type: 'subscribe', events: ['stats.sampled'] });
    assert.equal(await ipc.next(), { type: 'ack', subscribed: ['stats.sampled'], id: 1 });
    await waitFor(async () => (await kind('clash')) === 1, WAIT_MS, 'one clash subscriber');
    assert.equal([await kind('ipc'), await kind('sse'), await kind('ws')], [1, 0, 0]);
  } finally {
    traffic.close();
    ipc.close();
  }
  await waitFor(async () => (await kind('clash')) === 0 && (await kind('ipc')) === 0, WAIT_MS, 'none once they closed');
});

test.run();
