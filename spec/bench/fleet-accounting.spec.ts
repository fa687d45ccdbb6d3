import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { accountNode, formatAccounts, sumAccounts, type NodeLedger } from './fleet-accounting.js';

const events = (from: number, to: number): { event_id: string; sequence: number }[] =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ event_id: `e${from + i}`, sequence: from + i }));

/** Sequences 1..10; a gap 7..12 reported at the restart; 1..5 and 8 acknowledged. */
const killed: NodeLedger = { nodeId: 'fleet-2', archived: events(1, 10), gaps: [{ from_sequence: 7, to_sequence: 12 }] };
const acked = new Set(['e1', 'e2', 'e3', 'e4', 'e5', 'e8']);

test('each archived event is acknowledged, in a reported gap, or unaccounted, exactly one of them', () => {
  assert.equal(accountNode(killed, acked), {
    nodeId: 'fleet-2',
    archived: 10,
    acknowledged: 6,
    acknowledgedInGap: 1,
    inGap: 3,
    unaccounted: 1,
    unaccountedIds: ['e6'],
  });
});

test('the gap edges are inside the gap; a node without gaps has unacknowledged events unaccounted', () => {
  const edges: NodeLedger = { nodeId: 'n', archived: events(6, 13), gaps: [{ from_sequence: 7, to_sequence: 12 }] };
  const account = accountNode(edges, new Set());
  assert.equal([account.inGap, account.unaccounted, account.unaccountedIds], [6, 2, ['e6', 'e13']]);
  const noGaps = accountNode({ nodeId: 'n', archived: events(1, 5), gaps: [] }, new Set());
  assert.equal([noGaps.unaccounted, noGaps.unaccountedIds], [5, ['e1', 'e2', 'e3']]);
});

test('the sum adds every category over the nodes', () => {
  const other = accountNode({ nodeId: 'fleet-1', archived: events(1, 4), gaps: [] }, new Set(['e1', 'e2', 'e3', 'e4']));
  const total = sumAccounts('all', [other, accountNode(killed, acked)]);
  assert.equal(total, { nodeId: 'all', archived: 14, acknowledged: 10, acknowledgedInGap: 1, inGap: 3, unaccounted: 1, unaccountedIds: ['e6'] });
});

test('the text shows the chosen nodes, those with unaccounted events and the total, then the verdict', () => {
  const whole = accountNode({ nodeId: 'fleet-1', archived: events(1, 4), gaps: [] }, new Set(['e1', 'e2', 'e3', 'e4']));
  const full = accountNode({ ...killed, archived: events(1, 5).concat(events(7, 10)) }, acked);
  assert.is(
    formatAccounts([whole, full], new Set(['fleet-2'])),
    [
      'NODE         ARCHIVED  ACKNOWLEDGED  OF WHICH IN A GAP  IN A GAP, NOT ACKED  UNACCOUNTED',
      'fleet-2             9             6                  1                    3            0',
      'all 2 nodes        13            10                  1                    3            0',
      'verdict: every archived flow.completed accounted for (10 acknowledged, 3 in a reported replay gap)',
    ].join('\n'),
  );
  const failing = formatAccounts([whole, accountNode(killed, acked)], new Set());
  assert.match(failing, /^fleet-2 .* 1\nall 2 nodes .* 1\nverdict: FAIL, 1 archived flow.completed neither acknowledged nor in a reported replay gap, e\.g\. e6$/m);
});

test.run();
