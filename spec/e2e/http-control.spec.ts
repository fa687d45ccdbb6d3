import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope, FlowLifecyclePayload } from '../../streams/contract.js';
import { curl, CURL_TIMED_OUT, type CurlResult } from '../support/curl.js';
import { WAIT_MS } from '../support/far-bound.js';
import { startOrigin, type Origin } from '../support/origin.js';
import { waitFor } from '../support/wait-for.js';
import { SseClient } from '../support/event-clients.js';
import { startNode, type TestNode } from '../support/api-node.js';
import { loudBefore } from '../support/loud-before.js';

let node: TestNode;
let origin: Origin;
let stream: SseClient;
/** The url_test group's probe URL: a 200 answer. */
let probeUrl: string;

loudBefore(test, async () => {
  origin = await startOrigin();
  probeUrl = origin.url('/bytes/2?case=probe');
  node = await startNode({ probeUrl });
  stream = new SseClient(`${node.baseUrl}/api/v1/events/stream?types=flow.routed,flow.completed,policy.selected,policy.probe.completed`, {
    key: node.apiKey,
  });
  await waitFor(() => stream.frames.length >= 1, WAIT_MS, 'snapshot');
});
test.after(async () => {
  stream.close();
  await node.stop();
  await origin.close();
});

function fetchThroughNode(path: string): Promise<CurlResult> {
  return curl(['-x', node.proxyUrl, '-o', '/dev/null', origin.url(path)], 20_000);
}

function completed(): Envelope<FlowLifecyclePayload>[] {
  return stream.envelopes.filter((e) => e.event_type === 'flow.completed') as Envelope<FlowLifecyclePayload>[];
}

function selected(): Envelope[] {
  return stream.envelopes.filter((e) => e.event_type === 'policy.selected');
}

test('flows.close ends a live curl download: cancelled / manual', async () => {
  // A download that never ends: only the close can end it before curl's --max-time.
  const download = fetchThroughNode('/silent?case=close');
  const flowId = await waitFor(() => {
    const routed = stream.envelopes.find((e) => e.event_type === 'flow.routed') as Envelope<FlowLifecyclePayload> | undefined;
    return routed?.payload.flow_id;
  }, WAIT_MS, 'an active flow');
  const listed = await node.api('/api/v1/flows');
  assert.equal(listed.json.flows.map((f: { flow_id: string }) => f.flow_id), [flowId]);
  assert.is((await node.api(`/api/v1/flows/${flowId}`)).json.state, 'active');

  const res = await node.api(`/api/v1/flows/${flowId}/close`, { method: 'POST' });
  assert.is(res.status, 202);
  assert.equal(res.json, { flow_id: flowId, closing: true });
  const exit = (await download).code;
  assert.is.not(exit, 0, 'curl sees its download cut');
  assert.is.not(exit, CURL_TIMED_OUT, 'cut by the close, not by curl --max-time');

  const done = await waitFor(() => completed().find((e) => e.payload.flow_id === flowId), WAIT_MS, 'flow.completed');
  assert.is(done.payload.outcome, 'cancelled');
  assert.is(done.payload.close_reason, 'manual');
  assert.equal(done.payload.record.result, { outcome: 'cancelled', close_reason: 'manual', failure: null });
  assert.ok(done.payload.record.traffic.bytes_down > 0);
  assert.is((await node.api(`/api/v1/flows/${flowId}`)).status, 404);
});

test('select of a non-member or of no selector fails and emits no policy.selected', async () => {
  const before = selected().length;
  const notMember = await node.api('/api/v1/policies/proxy/select', { method: 'POST', body: { member: 'hop-z' } });
  assert.is(notMember.status, 422);
  assert.equal(notMember.json, {
    type: 'urn:weir:problem:not-a-member',
    title: 'Not a direct member of the selector',
    status: 422,
    detail: '"hop-z" is not a direct member of selector "proxy"',
    code: 'NOT_A_MEMBER',
    details: { members: ['direct', 'block', 'auto'] },
  });
  const nested = await node.api('/api/v1/policies/auto/select', { method: 'POST', body: { member: 'direct' } });
  assert.is(nested.status, 404, 'a url_test group is not a selector');
  assert.equal([nested.json.code, nested.json.detail], ['POLICY_NOT_FOUND', '"auto" is a url_test group, not a selector: its choice follows its probes']);
  const unknown = await node.api('/api/v1/policies/nope/select', { method: 'POST', body: { member: 'direct' } });
  assert.is(unknown.status, 404);
  assert.is(unknown.json.code, 'POLICY_NOT_FOUND');
  await new Promise((r) => setTimeout(r, 50));
  assert.is(selected().length, before);
  const proxy = (await node.api('/api/v1/policies')).json.policies.find((p: { tag: string }) => p.tag === 'proxy');
  assert.is(proxy.selected, 'direct');
});

test('select of a member emits policy.selected; a url_test member keeps its tag', async () => {
  const res = await node.api('/api/v1/policies/proxy/select', { method: 'POST', body: { member: 'auto' } });
  assert.is(res.status, 200);
  assert.equal(res.json, { policy_tag: 'proxy', selected: 'auto', previous: 'direct' });
  const event = await waitFor(() => selected().at(-1), WAIT_MS, 'policy.selected');
  assert.equal(event.payload, { policy_tag: 'proxy', policy_kind: 'selector', selected: 'auto', previous: 'direct' });
  const proxy = (await node.api('/api/v1/policies')).json.policies.find((p: { tag: string }) => p.tag === 'proxy');
  assert.is(proxy.selected, 'auto');
  await node.api('/api/v1/policies/proxy/select', { method: 'POST', body: { member: 'direct' } });
  await waitFor(() => (selected().at(-1)?.payload as { selected?: string } | undefined)?.selected === 'direct', WAIT_MS, 'policy.selected of direct');
});

test('selecting the member already selected answers it and emits no policy.selected: nothing switched', async () => {
  const before = selected().length;
  const res = await node.api('/api/v1/policies/proxy/select', { method: 'POST', body: { member: 'direct' } });
  assert.equal([res.status, res.json], [200, { policy_tag: 'proxy', selected: 'direct', previous: 'direct' }]);
  await new Promise((r) => setTimeout(r, 50));
  assert.is(selected().length, before);
});

test('a manual probe of a url_test group answers its round and emits policy.probe.completed', async () => {
  const res = await node.api('/api/v1/policies/auto/probe', { method: 'POST' });
  assert.is(res.status, 200);
  assert.is(res.json.policy_tag, 'auto');
  assert.is(res.json.trigger, 'manual');
  assert.is(res.json.url, probeUrl.replace('case=probe', 'case=REDACTED'), 'query values are not shown');
  assert.is(res.json.selected, 'direct');
  assert.equal(res.json.members.map((m: { target_tag: string; healthy: boolean }) => [m.target_tag, m.healthy]), [['direct', true]]);
  const event = await waitFor(
    () => stream.envelopes.find((e) => e.event_type === 'policy.probe.completed' && (e.payload as { trigger: string }).trigger === 'manual'),
    WAIT_MS,
    'policy.probe.completed',
  );
  assert.equal(event.payload, res.json);
  const selector = await node.api('/api/v1/policies/proxy/probe', { method: 'POST' });
  assert.is(selector.status, 404);
  assert.equal([selector.json.code, selector.json.detail], ['POLICY_NOT_FOUND', 'no url_test group "proxy"']);
});

test('mode global routes the next flow to the target; mode rule routes by rules again', async () => {
  const set = await node.api('/api/v1/mode', { method: 'PUT', body: { mode: 'global', target: 'block' } });
  assert.is(set.status, 200);
  assert.equal(set.json, { mode: 'global', global_target: 'block' });
  const seen = completed().length;
  await fetchThroughNode('/bytes/2?case=global');
  const blocked = await waitFor(() => completed()[seen], WAIT_MS, 'flow.completed');
  assert.equal(blocked.payload.route, { mode: 'global', target: 'block' });
  assert.is(blocked.payload.record.route.mode, 'global');
  assert.is(blocked.payload.record.route.target, 'block');
  assert.equal(blocked.payload.record.route.matched_rule, { index: -1, condition: 'global' });
  assert.is(blocked.payload.outcome, 'blocked');

  assert.equal((await node.api('/api/v1/mode', { method: 'PUT', body: { mode: 'rule' } })).json, { mode: 'rule', global_target: null });
  assert.is((await fetchThroughNode('/bytes/2?case=rule')).code, 0);
  const routed = await waitFor(() => completed()[seen + 1], WAIT_MS, 'flow.completed');
  assert.equal(routed.payload.route, { mode: 'rule', target: 'proxy' });
  assert.is(routed.payload.outcome, 'direct_relayed');
});

test('mode global needs a known target tag', async () => {
  const none = await node.api('/api/v1/mode', { method: 'PUT', body: { mode: 'global' } });
  assert.is(none.status, 422);
  assert.equal([none.json.code, none.json.detail], ['INVALID_BODY', 'mode global needs a target tag']);
  const unknown = await node.api('/api/v1/mode', { method: 'PUT', body: { mode: 'global', target: 'hop-z' } });
  assert.is(unknown.status, 404);
  assert.equal([unknown.json.code, unknown.json.detail], ['TAG_NOT_FOUND', 'no outbound "hop-z"']);
  assert.equal((await node.api('/api/v1/runtime')).json.mode, { mode: 'rule', global_target: null });
});

test('no secret of the config appears in a response body, an event or a log line', async () => {
  assert.is((await node.api('/api/v1/runtime')).status, 200);
  assert.is((await node.api('/api/v1/events?since=0&limit=10000')).status, 200);
  const texts = [...node.bodies, ...stream.frames.map((f) => f.data), await node.logText()];
  for (const secret of node.secrets) {
    for (const text of texts) assert.not.ok(text.includes(secret));
  }
});

test.run();
