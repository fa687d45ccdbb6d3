import { PassThrough, Writable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PausingWriter } from '../../../cli/pausing-writer.js';

/** A slow reader: a 16-byte buffer that takes each write a turn of the event loop later. */
function slowOut(): Writable {
  return new Writable({ highWaterMark: 16, write: (_chunk, _enc, done) => setImmediate(done) });
}

test('a burst of lines into a full output waits for one drain, pausing the source once, and resumes it', async () => {
  const out = slowOut();
  const source = new PassThrough();
  const writer = new PausingWriter(out, source);
  let most = 0;
  for (let i = 0; i < 50; i++) {
    writer.write(`line ${i} of a chunk read at once\n`);
    most = Math.max(most, out.listenerCount('drain'));
  }
  assert.is(most, 1, 'one wait for drain, not one per line');
  assert.ok(source.isPaused());
  await new Promise((resolve) => out.once('drain', resolve));
  await new Promise((resolve) => setImmediate(resolve));
  assert.not.ok(source.isPaused());
  assert.is(out.listenerCount('drain'), 0);
});

test('an output with room writes through without pausing', () => {
  const source = new PassThrough();
  const writer = new PausingWriter(new Writable({ highWaterMark: 1 << 20, write: (_c, _e, done) => done() }), source);
  writer.write('one line\n');
  assert.not.ok(source.isPaused());
});

test.run();
