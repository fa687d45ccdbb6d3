import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { curl } from '../support/curl.js';
import { fixture } from '../support/fixture.js';
import { recordOf } from '../support/flow-expect.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { ofType, waitForEvents, type JsonEnvelope } from '../support/jsonl.js';
import { eventsPath } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startSlowHop } from '../support/slow-hop.js';
import { startMicrosocks } from '../support/upstream-proxies.js';
import { startChainNode } from '../support/chain-expect.js';

/**
 * A url_test group whose chosen member goes down between two scheduled rounds: the
 * flow that finds it down fails, and brings the next round forward, so the group does
 * not send every flow to a dead hop until interval_s is over.
 */
const setup = fixture(
  test,
  async () => {
    const origin = await startOrigin();
    // Both healthy at the start; the slow one answers 300 ms late, so the round picks microsocks.
    const [ms, slow] = await Promise.all([startMicrosocks(), startSlowHop(300)]);
    const { node, stateDir } = await startChainNode(
      [
        { type: 'direct', tag: 'direct' },
        { type: 'socks', tag: 'ms', server: '127.0.0.1', port: ms.port },
        { type: 'http', tag: 'slow', server: '127.0.0.1', port: slow.port },
        // No scheduled round within the spec's time: only the startup one, and what a failure brings forward.
        { type: 'url_test', tag: 'auto', members: ['ms', 'slow'], url: origin.url('/bytes/2?probe'), interval_s: 3600, timeout_ms: 2000 },
      ],
      ['auto'],
    );
    return { origin, node, ms, slow, events: eventsPath(stateDir) };
  },
  async ({ origin, node, ms, slow }) => {
    await node.stop();
    slow.close();
    await Promise.all([origin.close(), ms.stop()]);
  },
);

function rounds(events: readonly JsonEnvelope[]): JsonEnvelope[] {
  return ofType(events, 'policy.probe.completed');
}

async function fetchThroughGroup(path: string) {
  const { origin, node, events } = await setup();
  const known = knownFlows(events);
  const res = await curl(['--socks5-hostname', `127.0.0.1:${node.ports['in-auto']}`, origin.url(path)]);
  return { res, flow: recordOf((await nextFlow(events, known)).completed) };
}

test('a dial failure through the chosen member brings the next round forward, and the group moves to a healthy member', async () => {
  const { events, ms } = await setup();
  const [startup] = rounds(await waitForEvents(events, (es) => rounds(es).length === 1, undefined, 'the startup round'));
  assert.is(startup!.payload['selected'], 'ms');

  await ms.stop();
  const down = await fetchThroughGroup('/bytes/10?case=down');
  assert.is.not(down.res.code, 0, 'curl fails');
  assert.equal(down.flow.route.selection_chain, ['auto', 'ms']);
  assert.equal([down.flow.result?.outcome, down.flow.result?.failure?.code], ['failed', 'HOP_REFUSED']);

  const after = await waitForEvents(events, (es) => rounds(es).length === 2, undefined, 'a round brought forward by the failure');
  assert.equal(
    [rounds(after)[1]!.payload['trigger'], rounds(after)[1]!.payload['selected']],
    ['scheduled', 'slow'],
    'the round is the next scheduled one, come early',
  );
  const switched = ofType(after, 'policy.selected').map((e) => e.payload);
  assert.equal(switched, [{ policy_tag: 'auto', policy_kind: 'url_test', selected: 'slow', previous: 'ms' }]);

  const healed = await fetchThroughGroup('/bytes/10?case=healed');
  assert.is(healed.res.code, 0, healed.res.stderr);
  assert.equal(healed.flow.route.selection_chain, ['auto', 'slow']);
  assert.is(healed.flow.result?.outcome, 'chained_relayed');
});

test('every flow is complete and the node stops cleanly', async () => {
  const { node, events } = await setup();
  await stopAndAudit(node, events);
});

test.run();
