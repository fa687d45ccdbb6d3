import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OutboxUnavailable } from '../../../actors/outbox/outbox-errors.js';
import { RedisHealth } from '../../../actors/outbox/redis-health.js';
import { RedisRefusedError } from '../../../actors/redis/redis-refusal.js';

const REFUSAL = new RedisRefusedError('127.0.0.1:6379', 'the sign-in failed: WRONGPASS');
/** A sink's write that Redis refused, as the Redis outbox rejects it. */
const REFUSED = new OutboxUnavailable(`the Redis outbox of sink a is unavailable: ${REFUSAL.message}`, { cause: REFUSAL });

function health(): { health: RedisHealth; told: string[] } {
  const told: string[] = [];
  // A loss is told with its reason: `lost: <reason>`.
  return { health: new RedisHealth({ lost: (m) => told.push(`lost: ${/\((.*)\); sinks/.exec(m)?.[1] ?? m}`), back: () => told.push('back') }), told };
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
  assert.equal(told, ['lost: refused', 'back']);
});

test('a refusal found after the outage was told for another reason is told once more, and not again in that outage', () => {
  const { health: h, told } = health();
  h.failed('a', 'Stream is not writeable');
  h.failed('a', REFUSED);
  h.failed('b', REFUSED);
  h.failed('a', 'Stream is not writeable');
  assert.equal(told, ['lost: Stream is not writeable', `lost: ${REFUSED.message}`]);
  h.answered('a');
  h.answered('b');
  h.failed('a', REFUSED);
  h.failed('a', REFUSED);
  assert.equal(told.slice(2), ['back', `lost: ${REFUSED.message}`], 'a refusal told first is told once');
});

test('an outage told at start is down until a sink finds Redis answering', () => {
  const { health: h, told } = health();
  h.markLost(REFUSAL);
  h.failed('a', REFUSED);
  assert.is(h.up, false);
  h.answered('a');
  assert.is(h.up, true);
  assert.equal(told, ['back']);
});

test.run();
