import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowRecord, StatsSnapshot } from '../../streams/contract.js';
import { stopAndAudit } from '../support/audit.js';
import { curl } from '../support/curl.js';
import { WAIT_MS } from '../support/far-bound.js';
import { recordOf } from '../support/flow-expect.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { freePort } from '../support/free-port.js';
import { ofType, readJsonl, waitForEvents, type JsonEnvelope } from '../support/jsonl.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { assertStatsFields } from '../support/stats-fields.js';

const INBOUND = { tag: 'socks-in', protocol: 'socks' };

const setup = proxyFixture(test, {
  inbounds: [{ type: 'socks', tag: INBOUND.tag }],
  rules: [{ domain_suffix: ['blocked.test'], outbound: 'block' }],
});

function stats(e: JsonEnvelope): StatsSnapshot {
  return e.payload as unknown as StatsSnapshot;
}

test('samples the statistics snapshot with every field, at most about once a second', async () => {
  const { events } = await setup();
  const all = await waitForEvents(events, (es) => ofType(es, 'stats.sampled').length >= 3, WAIT_MS, 'three stats.sampled');
  const samples = ofType(all, 'stats.sampled');
  for (const s of samples) {
    assertStatsFields(s.payload);
    assert.is(s.principal_key, null);
  }
  for (let i = 1; i < samples.length; i++) {
    const gap = samples[i]!.occurred_at_unix_ms - samples[i - 1]!.occurred_at_unix_ms;
    // Timers never fire early: a lower bound only (the machine may stall the node).
    assert.ok(gap >= 600, `stats.sampled ${gap} ms apart`);
  }
});

test('counts direct, blocked and failed sessions and the relayed bytes', async () => {
  const { origin, events, proxy } = await setup();
  const via = ['--socks5-hostname', proxy(INBOUND.tag)];
  const known = knownFlows(events);
  const ok = await curl([...via, origin.url('/bytes/7777?case=stats')]);
  assert.is(ok.code, 0, ok.stderr);
  const direct = recordOf((await nextFlow(events, known)).completed);
  await curl([...via, 'http://ads.blocked.test/']);
  await curl([...via, `http://127.0.0.1:${await freePort()}/`]);

  const completedBy = (es: JsonEnvelope[]): number => ofType(es, 'flow.completed').length;
  const after = await waitForEvents(
    events,
    (es) => {
      const last = ofType(es, 'stats.sampled').at(-1);
      return last !== undefined && completedBy(es.filter((e) => e.sequence < last.sequence)) === 3;
    },
    WAIT_MS,
    'a stats.sampled after the three flows',
  );
  const snapshot = stats(ofType(after, 'stats.sampled').at(-1)!);
  const records = ofType(after, 'flow.completed').map(recordOf);
  const sum = (f: (r: FlowRecord) => number): number => records.reduce((n, r) => n + f(r), 0);
  const { udp_upstream: udp, ...counters } = snapshot;
  assert.equal(
    counters,
    {
      active_sessions: 0,
      total_started: 3,
      completed_sessions: 3,
      failed_sessions: 1,
      blocked_sessions: 1,
      direct_sessions: 1,
      chained_sessions: 0,
      bytes_up: sum((r) => r.traffic.bytes_up),
      bytes_down: sum((r) => r.traffic.bytes_down),
    },
  );
  assert.is(snapshot.bytes_down, direct.traffic.bytes_down, 'only the direct flow moved bytes');
  assert.ok(Object.values(udp).every((n) => n === 0), 'no UDP yet');
});

test('counts an open tunnel as an active session', async () => {
  const { origin, events, proxy } = await setup();
  const seen = ofType(readJsonl(events), 'stats.sampled').length;
  // Open until a sample counted it.
  const hangUp = new AbortController();
  const pending = curl(['--socks5-hostname', proxy(INBOUND.tag), origin.url('/silent?case=stats-active')], WAIT_MS, hangUp.signal);
  const during = await waitForEvents(
    events,
    (es) => ofType(es, 'stats.sampled').slice(seen).some((s) => stats(s).active_sessions === 1),
    WAIT_MS,
    'a stats.sampled with the open tunnel',
  );
  hangUp.abort();
  const sample = stats(ofType(during, 'stats.sampled').slice(seen).find((s) => stats(s).active_sessions === 1)!);
  assert.is(sample.total_started, 4);
  assert.is(sample.completed_sessions, 3);
  await pending;
});

test('writes a sink file of valid envelopes with every flow complete', async () => {
  const { node, events } = await setup();
  await stopAndAudit(node, events);
});

test.run();
