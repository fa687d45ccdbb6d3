import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowRecord } from '../../streams/contract.js';
import { curl } from '../support/curl.js';
import { WAIT_MS } from '../support/far-bound.js';
import { startOrigin, type Origin } from '../support/origin.js';
import { waitFor } from '../support/wait-for.js';
import { runWeir } from '../support/weir-bin.js';
import { startIpcNode, type IpcNode } from './support-ipc.js';

let node: IpcNode;
let origin: Origin;

test.before(async () => {
  origin = await startOrigin();
  // Rule mode sends everything to `block`, so each mode is told apart by the outcome.
  node = await startIpcNode({ route: { mode: 'rule', rules: [], final: 'block' } });
});

test.after(async () => {
  await node.stop();
  await origin.close();
});

const weir = (...args: string[]) => runWeir([...args, '--ipc', node.socketPath]);

/** Flows a test has already taken. */
const seen = new Set<string>();

/** Fetches a unique path through the node and returns the completed flow's record. */
async function fetchThroughNode(tag: string): Promise<FlowRecord> {
  await curl(['--socks5-hostname', `127.0.0.1:${node.proxyPort}`, origin.url(`/bytes/10?${tag}`)]);
  const completed = await waitFor(
    () =>
      node.published
        .map((e) => (e.event_type === 'flow.completed' ? ((e.payload as { record: FlowRecord }).record) : undefined))
        .find((r) => r !== undefined && r.target.port === origin.port && !seen.has(r.flow_id)),
    WAIT_MS,
    `the flow of ${tag}`,
  );
  seen.add(completed.flow_id);
  return completed;
}
test('mode global <target> routes the next flow to the target, mode rule routes by the rules again', async () => {
  const before = await fetchThroughNode('rule-1');
  assert.equal([before.route.mode, before.result?.outcome], ['rule', 'blocked']);

  const global = await weir('mode', 'global', 'direct');
  assert.equal([global.code, global.stdout], [0, 'mode global -> direct\n']);
  assert.match((await weir('status')).stdout, /^mode +global -> direct$/m);
  const during = await fetchThroughNode('global');
  assert.equal(
    [during.route.mode, during.route.target, during.route.matched_rule, during.result?.outcome],
    ['global', 'direct', { index: -1, condition: 'global' }, 'direct_relayed'],
  );

  const rule = await weir('mode', 'rule', '--json');
  assert.equal([rule.code, JSON.parse(rule.stdout)], [0, { mode: 'rule', global_target: null }]);
  const after = await fetchThroughNode('rule-2');
  assert.equal([after.route.mode, after.result?.outcome], ['rule', 'blocked']);
});

test('mode global without a target is a usage error (exit 2) and changes nothing', async () => {
  const missing = await weir('mode', 'global');
  assert.equal([missing.code, missing.stderr], [2, 'weir: usage: weir mode rule | weir mode global <target_tag>\n']);
  const status = JSON.parse((await weir('status', '--json')).stdout) as { mode: unknown };
  assert.equal(status.mode, { mode: 'rule', global_target: null });
});

test('mode global with an unknown tag is refused (exit 4)', async () => {
  const unknown = await weir('mode', 'global', 'nowhere');
  assert.equal([unknown.code, unknown.stderr], [4, 'weir: no outbound "nowhere"\n']);
});

test.run();
