import { Writable } from 'node:stream';
import { pino } from 'pino';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AuthThrottle } from '../../../../http/auth/auth-throttle.js';

/** A throttle on a clock the spec moves, and the log lines it wrote (parsed). */
function throttle(opts = { maxFailures: 3, windowMs: 60_000, maxAddresses: 4 }) {
  let now = 1_000_000;
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const t = new AuthThrottle(pino({ level: 'info' }, sink), opts, () => now);
  return { t, lines, advance: (ms: number) => void (now += ms) };
}

const msgs = (lines: Record<string, unknown>[]): unknown[] => lines.map((l) => [l['msg'], l['remote']]);

test('an address is refused after maxFailures wrong keys, until the window after its last one', () => {
  const { t, advance } = throttle();
  for (let i = 0; i < 2; i++) t.failed('10.0.0.1');
  assert.is(t.retryAfterS('10.0.0.1'), null, 'two of three: still asked');
  t.failed('10.0.0.1');
  assert.is(t.retryAfterS('10.0.0.1'), 60);
  assert.is(t.retryAfterS('10.0.0.2'), null, 'other addresses go on');
  advance(59_000);
  assert.is(t.retryAfterS('10.0.0.1'), 1);
  advance(1_000);
  assert.is(t.retryAfterS('10.0.0.1'), null, 'the episode is over');
});

test('an episode is logged at its first wrong key and once when it ends, never per attempt', () => {
  const { t, lines, advance } = throttle();
  for (let i = 0; i < 50; i++) {
    t.failed('10.0.0.1');
    t.retryAfterS('10.0.0.1');
  }
  assert.equal(msgs(lines), [['control authentication failed: a wrong key', '10.0.0.1']]);
  advance(60_000);
  t.sweep();
  assert.equal(msgs(lines), [
    ['control authentication failed: a wrong key', '10.0.0.1'],
    ['control authentication failures ended', '10.0.0.1'],
  ]);
  assert.equal(
    { failures: lines[1]!['failures'], refused: lines[1]!['refused'], throttled: lines[1]!['throttled'] },
    { failures: 50, refused: 48, throttled: true },
  );
  assert.is(t.size, 0);
});

test('the table is bounded: past maxAddresses the address that failed longest ago is forgotten', () => {
  const { t, lines, advance } = throttle();
  for (let i = 0; i < 1000; i++) {
    t.failed(`10.0.${i >> 8}.${i & 255}`);
    advance(1);
  }
  assert.is(t.size, 4);
  assert.is(lines.filter((l) => l['msg'] === 'control authentication failures from too many addresses: forgetting the oldest').length, 1);
  // The newest are kept: three more wrong keys throttle the last address.
  for (let i = 0; i < 2; i++) t.failed('10.0.3.231');
  assert.ok(t.retryAfterS('10.0.3.231') !== null);
});

test.run();
