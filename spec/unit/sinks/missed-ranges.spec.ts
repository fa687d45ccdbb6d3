import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ReplayGap } from '../../../actors/contracts/outbox.js';
import type { ConnectorState, Sink } from '../../../actors/contracts/sink.js';
import { MissedRanges } from '../../../actors/sinks/missed-ranges.js';
import { rejectionOf } from '../../support/rejection.js';
import { tempDir } from '../../support/temp-dir.js';

/** A sink that keeps what its starts were given; `failing` makes them throw. */
function sinkOf(tag: string, failing = false): Sink & { given: (readonly ReplayGap[] | undefined)[] } {
  const given: (readonly ReplayGap[] | undefined)[] = [];
  return {
    tag,
    type: 'jsonl',
    given,
    start: async (_since, missed) => {
      given.push(missed);
      if (failing) throw new Error('cannot open');
    },
    stop: async () => 0,
    keptThrough: (last) => last,
    state: () => ({}) as ConnectorState,
  };
}

const range = (from: number, to: number): ReplayGap => ({ from_sequence: from, to_sequence: to, at_unix_ms: from * 1000 });

test('a tag’s ranges go to its next start that succeeds, then are forgotten; other tags keep theirs', async () => {
  const dir = tempDir('weir-missed-');
  const missed = new MissedRanges(dir);
  missed.add('late', range(3, 9));
  missed.add('other', range(1, 2));
  missed.add('late', range(12, 14));

  const failing = sinkOf('late', true);
  assert.match(String(await rejectionOf(missed.start(failing))), /cannot open/);
  const late = sinkOf('late');
  await missed.start(late, 5);
  assert.equal([failing.given, late.given], [[[range(3, 9), range(12, 14)]], [[range(3, 9), range(12, 14)]]]);

  const again = sinkOf('late');
  await missed.start(again);
  assert.equal(again.given, [[]]);
  const other = sinkOf('other');
  await new MissedRanges(dir).start(other);
  assert.equal(other.given, [[range(1, 2)]]);
  assert.equal(fs.readdirSync(dir), [], 'no file once nothing is owed');
});

test('a range overlapping one the tag carries widens it: one loss noted twice is one gap', async () => {
  const dir = tempDir('weir-missed-');
  const missed = new MissedRanges(dir);
  missed.add('late', range(5, 9));
  missed.add('late', range(5, 40));
  missed.add('late', range(2, 6));
  missed.add('late', range(41, 50));
  const late = sinkOf('late');
  await missed.start(late);
  assert.equal(late.given, [[{ ...range(2, 40), at_unix_ms: 5000 }, range(41, 50)]]);
});

test('a damaged file counts as empty: the sink still starts', async () => {
  const dir = tempDir('weir-missed-');
  fs.writeFileSync(path.join(dir, 'missed-by-unstarted-sinks.json'), '{"late": [{"from_sequence": "x"}]');
  const late = sinkOf('late');
  await new MissedRanges(dir).start(late);
  assert.equal(late.given, [[]]);
});

test.run();
