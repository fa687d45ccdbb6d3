import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ConnectorState, Sink } from '../../../actors/contracts/sink.js';
import { SinkKeeper } from '../../../actors/sinks/sink-keeper.js';
import { tempDir } from '../../support/temp-dir.js';
import { waitFor } from '../../support/wait-for.js';

/** A sink that has kept through `kept` and counted `gaps` replay gaps. */
function sinkOf(tag: string, kept: number, gaps: number): Sink {
  return {
    tag,
    type: 'jsonl',
    start: async () => undefined,
    stop: async () => kept,
    keptThrough: () => kept,
    state: (): ConnectorState => ({
      tag,
      type: 'jsonl',
      pending: 0,
      total_delivered: kept,
      total_failed: 0,
      replay_gaps: gaps,
      last_error: null,
      outbox_storage: { write_blocked: false },
    }),
  };
}

const readJson = (dir: string, file: string): unknown => JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));

test('a tick writes the states, then the marks; while the states cannot be written the marks stay where they were', async () => {
  const dir = tempDir('weir-keeper-');
  const problems: string[] = [];
  const keeper = new SinkKeeper(dir, (p) => problems.push(p));
  keeper.marks.saveNow({ archive: 1 });
  // A directory where the state file goes: its writes fail.
  fs.mkdirSync(path.join(dir, 'connector-state.json', 'blocked'), { recursive: true });
  keeper.tick([sinkOf('archive', 7, 1)], 9);
  await waitFor(() => problems.length === 1, 5000, 'the failed write of the states told');
  // The round's next step, the marks (or not), follows the failed write at once.
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(readJson(dir, 'sink-marks.json'), { archive: 1 }, 'a mark must not pass a gap count that is not kept');
  assert.is(problems.length, 1);
  assert.match(problems[0]!, 'connector state cannot be saved');

  fs.rmSync(path.join(dir, 'connector-state.json'), { recursive: true });
  keeper.tick([sinkOf('archive', 8, 1)], 9);
  await waitFor(() => (readJson(dir, 'sink-marks.json') as Record<string, number>)['archive'] === 8, 5000, 'the marks written');
  assert.equal((readJson(dir, 'connector-state.json') as ConnectorState[]).map((s) => [s.tag, s.replay_gaps, s.total_delivered]), [['archive', 1, 8]]);
  assert.is(problems.length, 1, 'told once per spell');
});

test('a clean stop writes the last states and removes the marks; states it cannot write leave the marks for the next start', async () => {
  const dir = tempDir('weir-keeper-');
  const keeper = new SinkKeeper(dir, () => undefined);
  keeper.marks.saveNow({ archive: 3 });
  await keeper.stopped([sinkOf('archive', 3, 2)]);
  assert.is(fs.existsSync(path.join(dir, 'sink-marks.json')), false);
  assert.equal((readJson(dir, 'connector-state.json') as ConnectorState[])[0]!.replay_gaps, 2);

  const blocked = tempDir('weir-keeper-');
  fs.mkdirSync(path.join(blocked, 'connector-state.json', 'blocked'), { recursive: true });
  const failing = new SinkKeeper(blocked, () => undefined);
  failing.marks.saveNow({ archive: 3 });
  await failing.stopped([sinkOf('archive', 3, 2)]);
  assert.equal(readJson(blocked, 'sink-marks.json'), { archive: 3 });
});

test.run();
