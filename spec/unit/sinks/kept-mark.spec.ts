import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KeptMark } from '../../../actors/sinks/kept-mark.js';

test('a sink with nothing unsettled vouches for everything published so far', () => {
  const m = new KeptMark(4);
  assert.is(m.checkpoint(10), 10);
  m.taken = 2;
  m.settled = 2;
  assert.is(m.checkpoint(15), 15);
});

test('the mark stays where it was until what a checkpoint had taken is settled', () => {
  const m = new KeptMark(4);
  m.taken = 3;
  assert.is(m.checkpoint(10), 4);
  m.settled = 2;
  assert.is(m.checkpoint(12), 4);
  m.taken = 5;
  m.settled = 3;
  // Everything taken by the checkpoints at 10 and 12 is settled; the one at 13 took two more.
  assert.is(m.checkpoint(13), 12);
  m.settled = 5;
  assert.is(m.checkpoint(14), 14);
});

test('a store stalled for longer than the checkpoints kept still lets the mark move on once it settles', () => {
  const m = new KeptMark(0);
  for (let tick = 1; tick <= 2000; tick++) {
    m.taken = tick;
    assert.is(m.checkpoint(tick * 10), 0);
  }
  // 600 checkpoints are kept: ticks 1..599, then the newest in place of the rest.
  m.settled = 1000;
  assert.is(m.checkpoint(20_010), 5990);
  m.settled = 2000;
  assert.is(m.checkpoint(20_020), 20_020);
});

test.run();
