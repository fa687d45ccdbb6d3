import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { level } from './level.js';
import { judge, readArchive, type OracleInput } from './soak-oracle.js';

const line = (type: string, id: string, sequence: number): string => JSON.stringify({ event_type: type, event_id: id, sequence });
const archive = (...lines: string[]): string => lines.map((l) => `${l}\n`).join('');
const text = archive(line('flow.started', 'a-1', 1), line('flow.completed', 'a-2', 2), line('flow.completed', 'a-3', 3), line('flow.completed', 'b-9', 9));

const input = (over: Partial<OracleInput>): OracleInput => ({
  archive: readArchive(text),
  acknowledged: ['a-2', 'a-3', 'b-9'],
  gaps: [],
  replayGaps: 0,
  totalDelivered: 3,
  deadLetters: 0,
  ...over,
});

test('readArchive keeps the flow.completed events and counts torn lines, a last one without its newline among them', () => {
  const read = readArchive(`${text}{"event_type":"flow.comp\n${line('flow.completed', 'c-1', 11)}{"event_type"\n{"event_ty`);
  assert.equal(
    read.completed.map((c) => [c.eventId, c.sequence]),
    [
      ['a-2', 2],
      ['a-3', 3],
      ['b-9', 9],
    ],
  );
  assert.is(read.torn, 3);
  assert.is(read.lines, 7);
  assert.is(readArchive('').lines, 0);
  assert.is(readArchive('[1]\n').torn, 1);
});

test('every archived event acknowledged once each, total_delivered equal: the verdict holds', () => {
  const v = judge(input({}));
  assert.equal(v.failures, []);
  assert.is(v.completed, 3);
  assert.is(v.acknowledgedDistinct, 3);
  assert.is(v.duplicates, 0);
  assert.is(v.inGap, 0);
});

test('an unacknowledged event inside a reported gap is allowed; outside every gap it fails the verdict', () => {
  const inside = judge(input({ acknowledged: ['a-2', 'a-3'], totalDelivered: 2, replayGaps: 1, gaps: [{ from_sequence: 5, to_sequence: 10 }] }));
  assert.equal(inside.failures, []);
  assert.is(inside.inGap, 1);
  const outside = judge(input({ acknowledged: ['a-2', 'a-3'], totalDelivered: 2, replayGaps: 1, gaps: [{ from_sequence: 10, to_sequence: 20 }] }));
  assert.equal(outside.missing, [{ eventId: 'b-9', sequence: 9 }]);
  assert.equal(outside.failures, ['1 archived flow.completed neither acknowledged nor in a reported gap, e.g. b-9 (sequence 9)']);
});

test('more replay_gaps than listed ranges fails when an event is unacknowledged, since it may lie in the unlisted one', () => {
  const v = judge(input({ acknowledged: ['a-2', 'a-3'], totalDelivered: 2, replayGaps: 2, gaps: [{ from_sequence: 9, to_sequence: 9 }] }));
  assert.equal(v.failures, ['replay_gaps is 2 but only 1 gaps are listed: some ranges are unknown']);
});

test('duplicates are counted, not failed; total_delivered above or below the distinct ids fails', () => {
  const dup = judge(input({ acknowledged: ['a-2', 'a-3', 'b-9', 'a-2', 'zz'], totalDelivered: 4 }));
  assert.equal(dup.failures, []);
  assert.is(dup.duplicates, 1);
  assert.is(dup.notArchived, 1);
  assert.equal(judge(input({ totalDelivered: 10 })).failures, ['total_delivered is 10, the receiver acknowledged 3 distinct events']);
  assert.is(judge(input({ totalDelivered: 10 })).deliveredExcess, 7);
  assert.is(judge(input({ totalDelivered: 2 })).deliveredExcess, -1);
});

test('dead letters and torn lines fail the verdict', () => {
  assert.equal(judge(input({ deadLetters: 2 })).failures, ['2 dead letters']);
  assert.equal(judge(input({ archive: readArchive(`${text}{"x`) })).failures, ['1 torn lines in the JSONL archive']);
});

test('level flags a floor that ends higher than the last half began, not swings under load or a bump that comes back down', () => {
  // One sample a second over 100 s: windows of 5 s, the last half from 50 s.
  const swinging = Array.from({ length: 100 }, (_, i) => ({ at: i, value: i < 50 ? 100 + i * 2 : i % 5 === 0 ? 200 : 200 + ((i * 37) % 100) }));
  const f = level(swinging, 100);
  assert.is(f.grows, false);
  assert.is(f.first, 200);
  assert.is(f.slopePerMinute, 0);
  const bump = Array.from({ length: 100 }, (_, i) => ({ at: i, value: i >= 70 && i < 85 ? 260 : 200 }));
  assert.is(level(bump, 100).grows, false);
  assert.ok(level(bump, 100).slopePerMinute > 0);
  const leaking = Array.from({ length: 100 }, (_, i) => ({ at: i, value: 200 + i + (i % 5) * 40 }));
  const r = level(leaking, 100);
  assert.is(r.grows, true);
  assert.is(r.first, 250);
  assert.is(r.last, 290);
  assert.is(r.riseShare, 0.16);
  assert.is(Math.round(r.slopePerMinute), 60);
  assert.is(level(leaking.slice(0, 60), 100).first, null);
});

test.run();
