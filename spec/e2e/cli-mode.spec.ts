import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowRecord } from '../../streams/contract.js';
import { curl } from '../support/curl.js';
import { recordOf } from '../support/flow-expect.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { cliFixture } from '../support/cli-fixture.js';

// Rule mode sends everything to `block`, so each mode is told apart by the outcome.
const setup = cliFixture(test, { final: 'block' });

/** Fetches a unique path through the node and returns the completed flow's record. */
async function fetchThroughNode(label: string): Promise<FlowRecord> {
  const { origin, events, via } = await setup();
  const known = knownFlows(events);
  await curl([...via, origin.url(`/bytes/10?case=${label}`)]);
  return recordOf((await nextFlow(events, known)).completed);
}

test('mode global <target> routes the next flow to the target, mode rule routes by the rules again', async () => {
  const { weir } = await setup();
  const before = await fetchThroughNode('rule-1');
  assert.equal([before.route.mode, before.result?.outcome], ['rule', 'blocked']);

  assert.equal(await weir('mode'), { code: 0, stdout: 'mode rule\n', stderr: '' });
  const global = await weir('mode', 'global', 'direct');
  assert.equal([global.code, global.stdout], [0, 'mode global -> direct\n']);
  assert.equal(await weir('mode'), { code: 0, stdout: 'mode global -> direct\n', stderr: '' });
  const shown = await weir('mode', '--json');
  assert.equal([shown.code, JSON.parse(shown.stdout)], [0, { mode: 'global', global_target: 'direct' }]);
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
  const { weir } = await setup();
  const missing = await weir('mode', 'global');
  assert.equal([missing.code, missing.stderr], [2, 'weir: usage: weir mode | weir mode rule | weir mode global <target_tag>\n']);
  const status = JSON.parse((await weir('status', '--json')).stdout) as { mode: unknown };
  assert.equal(status.mode, { mode: 'rule', global_target: null });
});

test('mode global with an unknown tag is refused (exit 4)', async () => {
  const { weir } = await setup();
  const unknown = await weir('mode', 'global', 'nowhere');
  assert.equal([unknown.code, unknown.stderr], [4, 'weir: no outbound "nowhere"\n']);
});

test.run();
