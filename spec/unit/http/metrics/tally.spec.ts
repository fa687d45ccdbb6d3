import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Tally } from '../../../../http/metrics/tally.js';

test('counts by key and builds a series\' labels once, when it first counts', () => {
  const tally = new Tally();
  let built = 0;
  const labels = (type: string): Record<string, string> => {
    built++;
    return { event_type: type };
  };
  for (const type of ['flow.started', 'flow.routed', 'flow.started', 'flow.started']) tally.add(type, type, labels);
  assert.equal(tally.totals(), [
    [{ event_type: 'flow.started' }, 3],
    [{ event_type: 'flow.routed' }, 1],
  ]);
  assert.is(built, 2);
});

test('has no series before anything counted', () => {
  assert.equal(new Tally().totals(), []);
});

test.run();
