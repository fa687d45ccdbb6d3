import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SinkMarks } from '../../../actors/sinks/sink-marks.js';
import { tempDir } from '../../support/temp-dir.js';
import { waitFor } from '../../support/wait-for.js';

const FILE = 'sink-marks.json';

function marks(dir: string, problems: string[] = []): SinkMarks {
  return new SinkMarks(dir, (p) => problems.push(p));
}

test('a run that did not stop cleanly leaves its marks for the next start', async () => {
  const dir = tempDir('weir-marks-');
  const run = marks(dir);
  run.saveNow({ archive: 4, hook: 4 });
  run.save({ archive: 9, hook: 7 });
  await waitFor(() => fs.readFileSync(path.join(dir, FILE), 'utf8').includes('9'), 5000, 'the tick written');
  // No clear(): the process was killed.
  assert.equal(marks(dir).left(), { archive: 9, hook: 7 });
});

test('a clean stop leaves nothing, even with a write under way', async () => {
  const dir = tempDir('weir-marks-');
  const run = marks(dir);
  assert.is(run.left(), null);
  run.saveNow({ archive: 1 });
  run.save({ archive: 2 });
  await run.clear();
  run.save({ archive: 3 });
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.is(fs.existsSync(path.join(dir, FILE)), false);
  assert.is(marks(dir).left(), null);
});

test('a file it cannot read or write is told once, and never stops the node', () => {
  const dir = tempDir('weir-marks-');
  fs.writeFileSync(path.join(dir, FILE), '{"archive": "x"');
  const problems: string[] = [];
  assert.is(marks(dir, problems).left(), null);
  assert.is(problems.length, 1);
  assert.match(problems[0]!, FILE);

  const blocked = path.join(dir, 'not-a-dir');
  fs.writeFileSync(blocked, '');
  const unwritable = marks(blocked, problems);
  unwritable.saveNow({ archive: 1 });
  unwritable.saveNow({ archive: 2 });
  assert.is(problems.length, 2);
  assert.match(problems[1]!, 'cannot be written');
});

test('while sinks are swapped the file keeps what was written before, and after the swap what it reports, even when it failed', async () => {
  const dir = tempDir('weir-marks-');
  const run = marks(dir);
  const read = (): unknown => JSON.parse(fs.readFileSync(path.join(dir, FILE), 'utf8'));
  await run.holding({ hook: 4 }, async () => {
    run.save({ hook: 9 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(read(), { hook: 4 });
  }, () => ({ hook: 6 }));
  assert.equal(read(), { hook: 6 });

  const failed = run.holding({ hook: 7 }, () => Promise.reject(new Error('swap failed')), () => ({ hook: 8 }));
  await failed.then(() => assert.unreachable('the swap failed'), () => undefined);
  assert.equal(read(), { hook: 8 });
  run.save({ hook: 10 });
  await waitFor(() => (read() as { hook: number }).hook === 10, 5000, 'ticks written again');
});

test('a tick’s write under way when a swap begins lands before the marks of the swap, not over them', async () => {
  const dir = tempDir('weir-marks-');
  const run = marks(dir);
  const read = (): unknown => JSON.parse(fs.readFileSync(path.join(dir, FILE), 'utf8'));
  run.saveNow({ hook: 1 });
  void run.save({ hook: 2 });
  await run.holding({ hook: 3, added: 3 }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(read(), { hook: 3, added: 3 });
  }, () => ({ hook: 5, added: 4 }));
  assert.equal(read(), { hook: 5, added: 4 });
});

test.run();
