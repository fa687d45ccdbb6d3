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

/** Stands for the connector state written where a crash leaves it. */
const kept = async (): Promise<boolean> => true;

const range = (from: number, to: number): ReplayGap => ({ from_sequence: from, to_sequence: to, at_unix_ms: from * 1000 });

/** MissedRanges in a fresh state dir with `ranges` added in this order. */
function carrying(ranges: [string, ReplayGap][]): { dir: string; missed: MissedRanges } {
  const dir = tempDir('weir-missed-');
  const missed = new MissedRanges(dir, kept);
  for (const [tag, r] of ranges) missed.add(tag, r);
  return { dir, missed };
}

test('a tag’s ranges go to its next start that succeeds, then are forgotten; other tags keep theirs', async () => {
  const { dir, missed } = carrying([
    ['late', range(3, 9)],
    ['other', range(1, 2)],
    ['late', range(12, 14)],
  ]);

  const failing = sinkOf('late', true);
  assert.match(String(await rejectionOf(missed.start(failing))), /cannot open/);
  const late = sinkOf('late');
  await missed.start(late, 5);
  assert.equal([failing.given, late.given], [[[range(3, 9), range(12, 14)]], [[range(3, 9), range(12, 14)]]]);

  const again = sinkOf('late');
  await missed.start(again);
  assert.equal(again.given, [[]]);
  const other = sinkOf('other');
  await new MissedRanges(dir, kept).start(other);
  assert.equal(other.given, [[range(1, 2)]]);
  assert.equal(fs.readdirSync(dir), [], 'no file once nothing is owed');
});

test('a range overlapping one the tag carries widens it: one loss noted twice is one gap', async () => {
  const { missed } = carrying([
    ['late', range(5, 9)],
    ['late', range(5, 40)],
    ['late', range(2, 6)],
    ['late', range(41, 50)],
  ]);
  const late = sinkOf('late');
  await missed.start(late);
  assert.equal(late.given, [[{ ...range(2, 40), at_unix_ms: 5000 }, range(41, 50)]]);
});

test('carried ranges are forgotten only once the sink’s count of them is kept: until then a crash counts them again', async () => {
  const dir = tempDir('weir-missed-');
  const order: string[] = [];
  let keeps = false;
  const missed = new MissedRanges(dir, async (sink) => {
    order.push(`kept ${sink.tag} after ${(sink as ReturnType<typeof sinkOf>).given.length} start`);
    return keeps;
  });
  missed.add('late', range(3, 9));
  await missed.start(sinkOf('late'));
  // The count could not be kept: the next start (after a crash) is given the range again.
  keeps = true;
  const next = sinkOf('late');
  await missed.start(next);
  assert.equal(next.given, [[range(3, 9)]]);
  assert.equal(order, ['kept late after 1 start', 'kept late after 1 start']);
  const after = sinkOf('late');
  await missed.start(after);
  assert.equal(after.given, [[]]);
  assert.equal(order.length, 2, 'a start with nothing carried keeps nothing');
});

test('a damaged file counts as empty: the sink still starts', async () => {
  const dir = tempDir('weir-missed-');
  fs.writeFileSync(path.join(dir, 'missed-by-unstarted-sinks.json'), '{"late": [{"from_sequence": "x"}]');
  const late = sinkOf('late');
  await new MissedRanges(dir, kept).start(late);
  assert.equal(late.given, [[]]);
});

test.run();
