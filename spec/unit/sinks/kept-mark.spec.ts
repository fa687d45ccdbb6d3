import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KeptMark } from '../../../actors/sinks/kept-mark.js';

test('a sink with nothing unsettled vouches for everything published so far', () => {
  const m = new KeptMark(4);
  assert.is(m.checkpoint(10), 10);
  m.took(2);
  m.settle(2);
  assert.is(m.checkpoint(15), 15);
});

test('the mark stays where it was until what a checkpoint had taken is settled', () => {
  const m = new KeptMark(4);
  m.took(3);
  assert.is(m.checkpoint(10), 4);
  m.settle(2);
  assert.is(m.checkpoint(12), 4);
  m.took(2);
  m.settle(1);
  // Everything taken by the checkpoints at 10 and 12 is settled; the one at 13 took two more.
  assert.is(m.checkpoint(13), 12);
  m.settledTotal(5);
  assert.is(m.checkpoint(14), 14);
});

test('a store stalled for longer than the checkpoints kept still lets the mark move on once it settles', () => {
  const m = new KeptMark(0);
  for (let tick = 1; tick <= 2000; tick++) {
    m.took();
    assert.is(m.checkpoint(tick * 10), 0);
  }
  // 600 checkpoints are kept: ticks 1..599, then the newest in place of the rest.
  m.settle(1000);
  assert.is(m.checkpoint(20_010), 5990);
  m.settle(1000);
  assert.is(m.checkpoint(20_020), 20_020);
});

test.run();
