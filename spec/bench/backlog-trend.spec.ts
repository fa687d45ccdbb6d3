import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { backlogTrend, slope } from './backlog-trend.js';

const every2s = (backlog: (at: number) => number): { at: number; backlog: number }[] =>
  Array.from({ length: 30 }, (_, i) => ({ at: 2 * i, backlog: backlog(2 * i) }));

test('slope is the least-squares slope, 0 without two distinct x', () => {
  assert.is(slope([{ x: 0, y: 1 }, { x: 1, y: 3 }, { x: 2, y: 5 }]), 2);
  assert.is(slope([{ x: 4, y: 1 }, { x: 4, y: 9 }]), 0);
  assert.is(slope([]), 0);
});

test('a backlog that levels off is bounded; the thirds are taken by time', () => {
  const t = backlogTrend(every2s((at) => (at < 20 ? at * 100 : at % 4 === 0 ? 2000 : 2100)), 60, 6000);
  assert.is(t.middleMean, 2050);
  assert.is(t.lastMean, 2050);
  assert.ok(Math.abs(t.slopePerSecond) < 10);
  assert.is(t.bounded, true);
});

test('a backlog growing at 5% of the events produced is not bounded', () => {
  const t = backlogTrend(every2s((at) => at * 300), 60, 6000);
  assert.is(Math.round(t.slopePerSecond), 300);
  assert.is(t.bounded, false);
  assert.ok((t.lastMean as number) > (t.middleMean as number));
});

test('thirds with no sample have no mean', () => {
  const t = backlogTrend([{ at: 1, backlog: 5 }], 60, 100);
  assert.is(t.middleMean, null);
  assert.is(t.lastMean, null);
  assert.is(t.slopePerSecond, 0);
});

test.run();
