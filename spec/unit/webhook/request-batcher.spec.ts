import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RequestBatcher } from '../../../actors/webhook/request-batcher.js';

/** A batcher whose requests stay open until `answer` is called; `sent` lists each request's entries. */
function batcher(batchSize: number, concurrency: number) {
  const sent: string[][] = [];
  const open: (() => void)[] = [];
  const b = new RequestBatcher<string, string>(
    (entries) =>
      new Promise((resolve) => {
        sent.push(entries);
        open.push(() => resolve(`request ${sent.length}`));
      }),
    { batchSize, concurrency },
  );
  return { b, sent, answerAll: () => open.splice(0).forEach((answer) => answer()) };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('a job with no backlog goes out alone in the next turn', async () => {
  const { b, sent, answerAll } = batcher(100, 2);
  const verdict = b.add(['a']);
  assert.equal(sent, []);
  await turn();
  assert.equal(sent, [['a']]);
  answerAll();
  assert.is(await verdict, 'request 1');
});

test('jobs waiting for a slot are packed up to batch_size, never split', async () => {
  const { b, sent, answerAll } = batcher(4, 1);
  const first = b.add(['a']);
  await turn();
  const waiting = [b.add(['b', 'c']), b.add(['d', 'e']), b.add(['f'])];
  answerAll();
  await first;
  // The slot is free: the first job that fits, then every next one that still fits.
  assert.equal(sent, [['a'], ['b', 'c', 'd', 'e']]);
  answerAll();
  await turn();
  assert.equal(sent.at(-1), ['f']);
  answerAll();
  assert.equal(await Promise.all(waiting), ['request 2', 'request 2', 'request 3']);
});

test('a job larger than batch_size goes in a request of its own', async () => {
  const { b, sent, answerAll } = batcher(2, 1);
  const verdicts = [b.add(['a', 'b', 'c']), b.add(['d'])];
  await turn();
  assert.equal(sent, [['a', 'b', 'c']]);
  answerAll();
  await verdicts[0];
  assert.equal(sent, [['a', 'b', 'c'], ['d']]);
  answerAll();
  assert.equal(await Promise.all(verdicts), ['request 1', 'request 2']);
});

test.run();
