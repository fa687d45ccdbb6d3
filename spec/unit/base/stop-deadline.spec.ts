import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { StopDeadline } from '../../../actors/base/stop-deadline.js';

/** A promise that never settles: a Redis or receiver that stopped answering. */
const hung = (): Promise<string> => new Promise<string>(() => {});

/** Far beyond every deadline below: a wait that only this ended has ignored its deadline. */
const FAR = 5000;

/** Whichever comes first: the wait's value, or 'far' once FAR has passed. */
async function settledBeforeFar<T>(wait: Promise<T>): Promise<T | 'far'> {
  const ac = new AbortController();
  try {
    return await Promise.race([wait, sleep(FAR, 'far' as const, { signal: ac.signal })]);
  } finally {
    ac.abort();
  }
}

test('a wait ends with the value when its promise settles first', async () => {
  const deadline = new StopDeadline();
  deadline.begin(FAR);
  assert.is(await deadline.within(Promise.resolve('answered')), 'answered');
});

test('a rejection passes through', async () => {
  const failed = await new StopDeadline().within(Promise.reject(new Error('refused'))).catch((err: Error) => err.message);
  assert.is(failed, 'refused');
});

test('before the stop begins, only its own cap bounds a wait', async () => {
  assert.is(await settledBeforeFar(new StopDeadline().within(hung(), 20)), null);
});

test('a wait under way when the stop begins ends by the deadline', async () => {
  const deadline = new StopDeadline();
  const waiting = deadline.within(hung());
  deadline.begin(20);
  assert.is(await settledBeforeFar(waiting), null);
});

test('waits in turn share one deadline: a later one gets only what is left, not its own cap', async () => {
  const deadline = new StopDeadline();
  deadline.begin(60);
  assert.is(await deadline.within(hung(), 20), null, 'its cap, nearer than the deadline');
  assert.is(await settledBeforeFar(deadline.within(hung(), FAR * 2)), null, 'the deadline, nearer than its cap');
  // A timer may fire up to a millisecond before Date.now() reaches its due time (libuv
  // keeps its own millisecond clock), so the deadline's wait can end with 1 ms left.
  assert.ok(deadline.leftMs() <= 1, `${deadline.leftMs()} ms left`);
  assert.is(await settledBeforeFar(deadline.within(hung())), null, 'after the deadline: at once');
});

test('a cap nearer than the deadline stays the bound of a wait begun before the stop', async () => {
  const deadline = new StopDeadline();
  const waiting = deadline.within(hung(), 20);
  deadline.begin(FAR * 2);
  assert.is(await settledBeforeFar(waiting), null);
});

test('leftMs is the cap before the stop begins, then what is left of the deadline, at most the cap', () => {
  const deadline = new StopDeadline();
  assert.is(deadline.leftMs(3000), 3000);
  assert.is(deadline.leftMs(), Infinity);
  deadline.begin(1000);
  assert.ok(deadline.leftMs() <= 1000 && deadline.leftMs() > 500);
  assert.is(deadline.leftMs(10), 10);
  deadline.begin(FAR);
  assert.ok(deadline.leftMs() <= 1000, 'only the first begin counts');
});

test.run();
