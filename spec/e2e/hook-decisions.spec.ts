import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { curl } from '../support/curl.js';
import { DIRECT, NO_AUTH, assertFlow, recordOf } from '../support/flow-expect.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { fixture } from '../support/fixture.js';
import { ofType } from '../support/jsonl.js';
import { e2eConfig, eventsPath } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';
import { startFakeHook, type HookQuestion } from '../unit/hook/fake-hook.js';

const SOCKS = { tag: 'socks-in', protocol: 'socks' };
const HOOK_RULE = { index: -1, condition: 'ipc_hook' };

/**
 * The hook's policy by target host: `denied.test` is denied, the IP literal is routed
 * to `via-hook` (where the rules would block it), the rest is allowed.
 */
function policy(q: HookQuestion): Record<string, unknown> {
  const host = (q['target'] as { host: string }).host;
  if (host === 'denied.test') return { action: 'deny' };
  if (host === '127.0.0.1') return { action: 'route', outbound: 'via-hook' };
  return { action: 'allow' };
}

const setup = fixture(
  test,
  async () => {
    const stateDir = tempDir();
    const hook = await startFakeHook(policy);
    const config = e2eConfig({
      stateDir,
      inbounds: [{ type: 'socks', tag: SOCKS.tag, listen: '127.0.0.1', port: 0 }],
      // no_resolve: the rule is for the literal (a name is routed as final), which only the hook sends via-hook.
      rules: [{ ip_cidr: ['127.0.0.1/32'], no_resolve: true, outbound: 'block' }],
      // The hook is asked with the process behind the flow.
      route: { process_lookup: true },
    });
    config['outbounds'] = [...(config['outbounds'] as object[]), { type: 'direct', tag: 'via-hook' }];
    // Generous: the question waits for the process lookup, and a busy test machine is slow.
    config['ipc_hook'] = { path: hook.path, timeout_ms: 2000 };
    const [origin, node] = await Promise.all([startOrigin(), startNode(config)]);
    return { origin, hook, node, events: eventsPath(stateDir), socks: `127.0.0.1:${node.ports[SOCKS.tag]}` };
  },
  async ({ origin, hook, node }) => {
    await node.stop();
    await origin.close();
    await hook.close();
  },
);

function questionFor(questions: readonly HookQuestion[], flowId: string): HookQuestion {
  const q = questions.find((x) => x['flow_id'] === flowId);
  assert.ok(q, `the hook was asked about ${flowId}`);
  return q;
}

test('a flow the hook allows is routed by the rules; the hook hears who, from where, to where', async () => {
  const { origin, hook, events, socks } = await setup();
  const known = knownFlows(events);
  const res = await curl(['--socks5-hostname', socks, `http://localhost:${origin.port}/bytes/10?case=hook-allow`]);
  assert.is(res.code, 0, res.stderr);
  const flow = await nextFlow(events, known);
  const target = { host: 'localhost', port: origin.port };
  assertFlow(flow, {
    inbound: SOCKS,
    auth: NO_AUTH,
    target,
    route: { target: 'direct', matched_rule: { index: -1, condition: 'final' } },
    outbound: DIRECT,
    outcome: 'direct_relayed',
  });
  const { id, ...question } = questionFor(hook.questions, flow.flowId);
  const source = recordOf(flow.started).source!;
  assert.ok(Number.isInteger(id));
  assert.equal(question, {
    flow_id: flow.flowId,
    network: 'tcp',
    inbound: SOCKS,
    source: { ...source, process_id: (question['source'] as { process_id: number }).process_id, process_name: 'curl', process_path: '/usr/bin/curl' },
    target,
    auth: { scheme: 'noauth', principal_key: null },
  });
});

test('a flow the hook denies is blocked before routing', async () => {
  const { events, socks } = await setup();
  const known = knownFlows(events);
  const res = await curl(['--socks5-hostname', socks, 'http://denied.test:8080/']);
  assert.is.not(res.code, 0, 'curl fails');
  const flow = await nextFlow(events, known);
  assert.is(flow.routed, undefined, 'never routed');
  const r = recordOf(flow.completed);
  assert.equal(r.target, { host: 'denied.test', port: 8080 });
  assert.equal(r.route, { mode: 'rule', action: 'route', target: null, matched_rule: HOOK_RULE, selection_chain: [] });
  assert.equal(r.path, { outbound: null, remote: null, relay_chain: [] });
  assert.equal(r.result, { outcome: 'blocked', close_reason: null, failure: null });
  assert.is(flow.completed.payload['outcome'], 'blocked');
  assert.equal(flow.completed.payload['route'], { mode: 'rule', target: null });
});

test('the hook overrides the route of a flow', async () => {
  const { origin, events, socks } = await setup();
  const known = knownFlows(events);
  const res = await curl(['--socks5', socks, origin.url('/bytes/10?case=hook-route')]);
  assert.is(res.code, 0, `without the hook the rules would block it: ${res.stderr}`);
  const flow = await nextFlow(events, known);
  const r = recordOf(flow.completed);
  assert.equal(r.route, { mode: 'rule', action: 'route', target: 'via-hook', matched_rule: HOOK_RULE, selection_chain: ['via-hook'] });
  assert.equal(r.path.outbound, { tag: 'via-hook', protocol: 'direct' });
  assert.is(r.result?.outcome, 'direct_relayed');
});

test('a reachable hook raises no warning', async () => {
  const { node, events } = await setup();
  const all = await stopAndAudit(node, events);
  assert.equal(ofType(all, 'engine.warning'), []);
});

test.run();
