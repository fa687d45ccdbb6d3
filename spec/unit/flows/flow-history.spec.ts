import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FlowHistory, type CompletedFlow } from '../../../actors/flows/flow-history.js';
import type { Outcome } from '../../../streams/contract.js';
import { activeRecord, T0 } from './fixtures.js';

function done(sequence: number, principal: string | null, outcome: Outcome = 'direct_relayed'): CompletedFlow {
  const record = activeRecord(`f-${sequence}`);
  assert.is(record.path.outbound?.tag, 'hop-a');
  return {
    sequence,
    principal_key: principal,
    record: {
      ...record,
      state: 'completed',
      timing: { ...record.timing, ended_at_unix_ms: T0 + sequence },
      result: { outcome, close_reason: null, failure: null },
    },
  };
}

const sequences = (flows: readonly CompletedFlow[]): number[] => flows.map((f) => f.sequence);

test('keeps the newest `size` flows, newest first, past a wrap of the ring', () => {
  const history = new FlowHistory(3);
  for (let s = 1; s <= 7; s++) history.add(done(s, 'alice'));
  assert.equal(sequences(history.page({ limit: 10 }).flows), [7, 6, 5]);
  assert.is(history.sequenceOf('f-4'), undefined, 'a flow that left the ring');
  assert.is(history.sequenceOf('f-5'), 5);
});

test('pages with before and says when no older flow matches', () => {
  const history = new FlowHistory(10);
  for (let s = 1; s <= 5; s++) history.add(done(s, s % 2 ? 'alice' : null));
  assert.equal(history.page({ limit: 2 }), { flows: [done(5, 'alice'), done(4, null)], next_before: 4, history_size: 10 });
  assert.equal(sequences(history.page({ limit: 2, before: 4 }).flows), [3, 2]);
  assert.is(history.page({ limit: 2, before: 2 }).next_before, null);
  assert.equal(sequences(history.page({ limit: 2, principal: 'alice' }).flows), [5, 3]);
  assert.is(history.page({ limit: 2, principal: 'alice' }).next_before, 3, 'flow 1 matches after the page');
  assert.is(history.page({ limit: 3, principal: 'alice' }).next_before, null);
  assert.equal(sequences(history.page({ limit: 9, principal: null }).flows), [4, 2]);
  assert.equal(sequences(history.page({ limit: 9, since_unix_ms: T0 + 2, until_unix_ms: T0 + 4 }).flows), [3, 2]);
});

test('filters by outcome, and by outbound: the route target of a flow that got none', () => {
  const history = new FlowHistory(10);
  history.add(done(1, 'a'));
  const failed = done(2, 'a', 'failed');
  history.add({ ...failed, record: { ...failed.record, path: { ...failed.record.path, outbound: null } } });
  assert.equal(sequences(history.page({ limit: 9, outcome: 'failed' }).flows), [2]);
  assert.equal(sequences(history.page({ limit: 9, outbound: 'hop-a' }).flows), [1]);
  assert.equal(sequences(history.page({ limit: 9, outbound: 'proxy' }).flows), [2]);
  assert.equal(history.page({ limit: 9, outbound: 'elsewhere' }).flows, []);
});

test('a history of size 0 keeps nothing', () => {
  const history = new FlowHistory(0);
  history.add(done(1, 'a'));
  assert.equal(history.page({ limit: 5 }), { flows: [], next_before: null, history_size: 0 });
});

test.run();
