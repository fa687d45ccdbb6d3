import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { CURL_TIMED_OUT, curl } from '../support/curl.js';
import { FAR_MS, WAIT_MS } from '../support/far-bound.js';
import { recordOf } from '../support/flow-expect.js';
import { knownFlows, lifecycleOf, nextFlow } from '../support/flow-lifecycle.js';
import { waitForEvents } from '../support/jsonl.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { startSlowHop } from '../support/slow-hop.js';
import { runWeir } from '../support/weir-bin.js';

// Flows whose dial is still pending: through a hop that never answers (`stall`), or one
// that answers after a while (`slow`). Dials have no deadline of their own here.
const stall = await startSlowHop(null);
const slow = await startSlowHop(1500);
const setup = proxyFixture(test, {
  inbounds: [
    { type: 'socks', tag: 'socks-in' },
    { type: 'http', tag: 'http-in' },
  ],
  outbounds: [
    { type: 'http', tag: 'stall', server: '127.0.0.1', port: stall.port },
    { type: 'http', tag: 'slow', server: '127.0.0.1', port: slow.port },
  ],
  rules: [
    { inbound: ['socks-in'], outbound: 'stall' },
    { inbound: ['http-in'], outbound: 'slow' },
  ],
  flows: { connect_timeout_ms: FAR_MS },
});
test.after(() => {
  stall.close();
  slow.close();
});

/** The flow_id of the next flow.started not in `known`: a connection whose flow is opening. */
async function nextStartedFlowId(events: string, known: ReadonlySet<string>): Promise<string> {
  const isNew = (e: { event_type: string; payload: Record<string, unknown> }): boolean =>
    e.event_type === 'flow.started' && !known.has(String(e.payload['flow_id']));
  const all = await waitForEvents(events, (es) => es.some(isNew), WAIT_MS, 'a new flow.started');
  return String(all.find(isNew)!.payload['flow_id']);
}

test('flows close of a flow still dialling ends it at once: cancelled / manual, and curl is refused', async () => {
  const { origin, node, events, proxy } = await setup();
  const known = knownFlows(events);
  const download = curl(['--socks5', proxy('socks-in'), origin.url('/bytes/10?case=close-opening')]);
  const flowId = await nextStartedFlowId(events, known);
  const close = await runWeir(['flows', 'close', flowId, '-c', node.configPath]);
  assert.equal([close.code, close.stdout], [0, `closing flow ${flowId}\n`]);
  const res = await download;
  assert.is.not(res.code, 0, 'curl is told the tunnel failed');
  assert.is.not(res.code, CURL_TIMED_OUT, 'refused by the close, not by curl --max-time');
  const flow = await nextFlow(events, known);
  assert.is(flow.flowId, flowId);
  assert.is(flow.routed, undefined, 'never routed');
  assert.is(flow.completed.payload['outcome'], 'cancelled');
  assert.is(flow.completed.payload['close_reason'], 'manual');
  assert.equal(recordOf(flow.completed).result, { outcome: 'cancelled', close_reason: 'manual', failure: null });
});

test('an HTTP client that gives up while its flow dials: the flow still completes once the dial is done', async () => {
  const { origin, events, proxy } = await setup();
  const known = knownFlows(events);
  const res = await curl(['-x', `http://${proxy('http-in')}`, origin.url('/bytes/10?case=abandoned')], 300);
  assert.is(res.code, CURL_TIMED_OUT, 'curl gave up before the hop answered');
  const flow = await nextFlow(events, known);
  assert.is(flow.completed.payload['outcome'], 'chained_relayed');
  const record = recordOf(flow.completed);
  assert.equal([record.traffic.bytes_up, record.traffic.bytes_down], [0, 0], 'nothing was forwarded for a client that had gone');
  assert.is(origin.connectionFor('/bytes/10?case=abandoned'), undefined, 'the origin never saw the request');
});

test('SIGTERM while a flow dials: it completes as cancelled before engine.stopped, and weir exits 0', async () => {
  const { origin, node, events, proxy } = await setup();
  const known = knownFlows(events);
  const pending = curl(['--socks5', proxy('socks-in'), origin.url('/bytes/10?case=shutdown-opening')]);
  const flowId = await nextStartedFlowId(events, known);
  const all = await stopAndAudit(node, events);
  assert.is.not((await pending).code, 0);
  const flow = lifecycleOf(all, flowId);
  assert.is(flow.routed, undefined);
  assert.equal(recordOf(flow.completed).result, { outcome: 'cancelled', close_reason: null, failure: null });
  assert.is('close_reason' in flow.completed.payload, false, 'no close_reason: the node stopped');
  const stopped = all.at(-1)!;
  assert.is(stopped.event_type, 'engine.stopped');
  assert.ok(flow.completed.sequence < stopped.sequence, 'the flow completed before engine.stopped');
});

test.run();
