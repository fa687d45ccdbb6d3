import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowRecord } from '../../streams/contract.js';
import { stopAndAudit } from '../support/audit.js';
import { curl } from '../support/curl.js';
import { directRelayed } from '../support/direct-download.js';
import { assertFlow, recordOf } from '../support/flow-expect.js';
import { knownFlows, nextFlows } from '../support/flow-lifecycle.js';
import type { JsonEnvelope } from '../support/jsonl.js';
import { startOrigin } from '../support/origin.js';
import { proxyFixture } from '../support/proxy-fixture.js';

const INBOUND = { tag: 'socks-in', protocol: 'socks' };

const setup = proxyFixture(test, { inbounds: [{ type: 'socks', tag: INBOUND.tag }] });

/** flow.updated as the contract lists it, plus the complete record every flow event carries. */
const UPDATED_KEYS = [
  'bytes_down',
  'bytes_up',
  'flow_id',
  'inbound_rx_bytes',
  'inbound_tag',
  'inbound_tx_bytes',
  'network',
  'outbound_rx_bytes',
  'outbound_tag',
  'outbound_tx_bytes',
  'record',
  'snapshot_at_unix_ms',
  'throughput_down_bps',
  'throughput_up_bps',
];

const COUNTERS = ['bytes_up', 'bytes_down', 'inbound_rx_bytes', 'inbound_tx_bytes', 'outbound_rx_bytes', 'outbound_tx_bytes'] as const;

function assertUpdatedPayload(e: JsonEnvelope): void {
  const p = e.payload;
  const r = p['record'] as FlowRecord;
  assert.equal(Object.keys(p).sort(), UPDATED_KEYS, 'flow.updated fields');
  assert.is(r.state, 'active');
  assert.is(p['flow_id'], r.flow_id);
  assert.is(p['network'], 'tcp');
  assert.is(p['inbound_tag'], INBOUND.tag);
  assert.is(p['outbound_tag'], 'direct');
  for (const k of COUNTERS) assert.is(p[k], r.traffic[k], `flow.updated ${k} is the record's`);
  assert.is(p['throughput_up_bps'], r.throughput.upload_bps);
  assert.is(p['throughput_down_bps'], r.throughput.download_bps);
  assert.is(p['snapshot_at_unix_ms'], r.throughput.sampled_at_unix_ms);
  assert.is(e.occurred_at_unix_ms, p['snapshot_at_unix_ms'], 'a sample occurs when it was taken');
}

test('samples a slow download into flow.updated events, only when its counters changed', async () => {
  const { origin, events, proxy } = await setup();
  // The silent flow goes to a second origin, so the two flows differ by target port.
  const quietOrigin = await startOrigin();
  try {
    const known = knownFlows(events);
    // 14 chunks of 2,000 bytes, one every 200 ms: about 2.8 s of traffic.
    const slow = curl(['--socks5-hostname', proxy(INBOUND.tag), origin.url('/trickle?chunks=14&size=2000&every_ms=200')]);
    // A tunnel that moves 6 bytes, then nothing until curl gives up after 3 s.
    const quiet = curl(['--socks5-hostname', proxy(INBOUND.tag), quietOrigin.url('/silent?case=updated')], 3000);
    const [done, stalled] = await Promise.all([slow, quiet]);
    assert.is(done.code, 0, done.stderr);
    assert.is(done.body.length, 28_000);
    assert.is(stalled.code, 28, 'curl timed out on the silent transfer');

    const flows = await nextFlows(events, known, 2);
    const to = (port: number) => flows.find((f) => recordOf(f.started).target.port === port)!;
    const [moving, still] = [to(origin.port), to(quietOrigin.port)];
    assertFlow(moving, directRelayed(INBOUND, origin.port));
    assertFlow(still, directRelayed(INBOUND, quietOrigin.port));

    assert.ok(moving.updated.length >= 2, `${moving.updated.length} flow.updated over ~2.8 s`);
    let previous = recordOf(moving.routed!);
    for (const u of moving.updated) {
      assertUpdatedPayload(u);
      const r = recordOf(u);
      assert.ok(r.revision > previous.revision, 'each sample bumps the revision');
      assert.ok(COUNTERS.some((k) => r.traffic[k] !== previous.traffic[k]), 'a sample is sent only when a counter moved');
      assert.ok(r.traffic.bytes_down >= previous.traffic.bytes_down, 'bytes_down never goes back');
      // No wall-clock spacing is asserted (shared machine); samples only move forward in time.
      assert.ok(r.throughput.sampled_at_unix_ms > previous.throughput.sampled_at_unix_ms, 'each sample is taken later');
      previous = r;
    }
    assert.ok(moving.updated.some((u) => (u.payload['throughput_down_bps'] as number) > 0), 'a download rate was measured');
    assert.ok(recordOf(moving.completed).traffic.bytes_down >= previous.traffic.bytes_down);

    // The request and the 6-byte answer may fall into one sample or two; the ~2 s of
    // silence after them add none: every sample shows counters that moved.
    assert.ok(still.updated.length <= 2, `${still.updated.length} flow.updated for a silent flow`);
    let before = recordOf(still.routed!);
    for (const u of still.updated) {
      assertUpdatedPayload(u);
      const r = recordOf(u);
      assert.ok(COUNTERS.some((k) => r.traffic[k] !== before.traffic[k]), 'a silent flow is sampled only when a counter moved');
      before = r;
    }
  } finally {
    await quietOrigin.close();
  }
});

test('writes a sink file of valid envelopes with every flow complete', async () => {
  const { node, events } = await setup();
  await stopAndAudit(node, events);
});

test.run();
