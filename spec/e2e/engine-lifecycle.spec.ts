import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { curl } from '../support/curl.js';
import { directRelayed } from '../support/direct-download.js';
import { WAIT_MS } from '../support/far-bound.js';
import { assertFlow, recordOf } from '../support/flow-expect.js';
import { assertEnvelopes, knownFlows, lifecycleOf, nextRoutedFlowId } from '../support/flow-lifecycle.js';
import { ofType, readJsonl, waitForEvents } from '../support/jsonl.js';
import { E2E_NODE_ID } from '../support/node-config.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { runWeir } from '../support/weir-bin.js';

const INBOUND = { tag: 'socks-in', protocol: 'socks' };
/** Read before the fixtures spawn their nodes. */
const spawnedAfter = Date.now();
const termed = proxyFixture(test, { inbounds: [{ type: 'socks', tag: INBOUND.tag }] });
const interrupted = proxyFixture(test, { inbounds: [{ type: 'socks', tag: INBOUND.tag }] });

test('emits engine.started first, with the build id build-info reports', async () => {
  const { events } = await termed();
  const all = await waitForEvents(events, (es) => es.length > 0, WAIT_MS, 'engine.started');
  const first = all[0]!;
  assert.is(first.event_type, 'engine.started');
  assert.equal(Object.keys(first.payload).sort(), ['build_id', 'started_at_unix_ms']);
  const info = await runWeir(['build-info', '--json']);
  assert.is(first.payload['build_id'], (JSON.parse(info.stdout) as { git_hash: string }).git_hash);
  const startedAt = first.payload['started_at_unix_ms'] as number;
  assert.ok(Number.isInteger(startedAt) && startedAt <= first.occurred_at_unix_ms, 'started before it said so');
  assert.ok(startedAt >= spawnedAfter, `started_at is a unix time in ms, after the spawn: ${startedAt} < ${spawnedAfter}`);
  assert.is(ofType(all, 'engine.started').length, 1);
});

test('on SIGTERM completes an open tunnel, then emits engine.stopped last and exits 0', async () => {
  const { origin, node, events, proxy } = await termed();
  const known = knownFlows(events);
  const tunnel = curl(['--socks5-hostname', proxy(INBOUND.tag), origin.url('/silent?case=shutdown')], 10_000);
  const flowId = await nextRoutedFlowId(events, known);

  const all = await stopAndAudit(node, events);
  const cut = await tunnel;
  assert.is.not(cut.code, 0, 'curl saw its tunnel end');

  const flow = lifecycleOf(all, flowId);
  // Shutdown ends the flow as an ordinary close: the relayed outcome, no close_reason.
  assertFlow(flow, directRelayed(INBOUND, origin.port));
  const last = all.at(-1)!;
  assert.is(last.event_type, 'engine.stopped', 'engine.stopped is the last event');
  assert.equal(last.payload, { stopped_at_unix_ms: last.payload['stopped_at_unix_ms'], reason: 'signal' });
  assert.ok(flow.completed.sequence < last.sequence, 'the open flow completed before engine.stopped');
  assert.ok((last.payload['stopped_at_unix_ms'] as number) >= recordOf(flow.completed).timing.ended_at_unix_ms!);
  assert.is(ofType(all, 'engine.stopped').length, 1);
});

test('on SIGINT emits engine.stopped with reason signal and exits 0', async () => {
  const { node, events } = await interrupted();
  assert.is(await node.stop('SIGINT'), 0, `weir's stderr: ${node.stderr()}`);
  const all = readJsonl(events);
  assertEnvelopes(all, E2E_NODE_ID);
  assert.is(all[0]!.event_type, 'engine.started');
  assert.is(all.at(-1)!.event_type, 'engine.stopped');
  assert.is(all.at(-1)!.payload['reason'], 'signal');
});

test.run();
