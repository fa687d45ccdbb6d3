import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RedisHealth } from '../../../actors/outbox/redis-health.js';

function health(): { health: RedisHealth; told: string[] } {
  const told: string[] = [];
  return { health: new RedisHealth({ lost: () => told.push('lost'), back: () => told.push('back') }), told };
}

test('up goes false with the first sink Redis fails and true once every failed sink found it answering, told once each', () => {
  const { health: h, told } = health();
  assert.is(h.up, true);
  h.failed('a', 'refused');
  h.failed('b', 'refused');
  assert.is(h.up, false);
  h.answered('a');
  assert.is(h.up, false, 'sink b has not found it back');
  h.answered('b');
  assert.is(h.up, true);
  h.answered('a');
  assert.equal(told, ['lost', 'back']);
});

test('an outage told at start is down until a sink finds Redis answering', () => {
  const { health: h, told } = health();
  h.markLost();
  assert.is(h.up, false);
  h.answered('a');
  assert.is(h.up, true);
  assert.equal(told, ['back']);
});

test.run();
