import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SequenceReservation } from '../../../actors/files/sequence-reservation.js';
import { tempDir } from '../../support/temp-dir.js';
import { waitFor } from '../../support/wait-for.js';

const BLOCK = 100;

function stored(dir: string): unknown {
  return JSON.parse(fs.readFileSync(path.join(dir, 'sequence.json'), 'utf8'));
}

test('a first start begins at 1 and reserves a block past it', () => {
  const dir = tempDir();
  const r = SequenceReservation.open(dir, { block: BLOCK });
  assert.equal([r.first, r.problem], [1, null]);
  assert.equal(stored(dir), { next_sequence: 101 });
});

test('after a clean stop the next start goes on right after the last sequence', () => {
  const dir = tempDir();
  SequenceReservation.open(dir, { block: BLOCK }).close(42);
  assert.is(SequenceReservation.open(dir, { block: BLOCK }).first, 43);
});

test('after a crash (no close) the next start begins above the whole reservation', () => {
  const dir = tempDir();
  SequenceReservation.open(dir, { block: BLOCK });
  const next = SequenceReservation.open(dir, { block: BLOCK });
  assert.is(next.first, 101);
  assert.equal(stored(dir), { next_sequence: 201 });
});

test('reserves the next block once half of this one is used, not before', async () => {
  const dir = tempDir();
  const r = SequenceReservation.open(dir, { block: BLOCK });
  r.keepAhead(50);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(stored(dir), { next_sequence: 101 });
  r.keepAhead(51);
  await waitFor(() => (stored(dir) as { next_sequence: number }).next_sequence === 201, 2000, 'the next block');
  // The new block counts from there: its half is 150.
  r.keepAhead(150);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(stored(dir), { next_sequence: 201 });
});

test('a file lost after a crash: the run begins a block past what the sinks had kept, and says so', () => {
  const dir = tempDir();
  const r = SequenceReservation.open(dir, { block: BLOCK, published: 42 });
  assert.is(r.first, 143);
  assert.is(r.behind, `${path.join(dir, 'sequence.json')} was missing, not past sequence 42 that a sink had kept, so this run begins a block past it, at 143`);
  assert.is(r.problem, null);
  assert.equal(stored(dir), { next_sequence: 243 });
});

test('a file behind what the sinks had kept (damaged, or its writes failed) is passed the same way', () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'sequence.json'), '{"next_sequence": 10}');
  assert.equal([SequenceReservation.open(dir, { block: BLOCK, published: 42 }).first, stored(dir)], [143, { next_sequence: 243 }]);
  fs.writeFileSync(path.join(dir, 'sequence.json'), '{"next_sequence": "x"}');
  const damaged = SequenceReservation.open(dir, { block: BLOCK, published: 42 });
  assert.is(damaged.first, 143);
  assert.match(damaged.behind ?? '', 'is damaged, not past sequence 42');
  assert.is(damaged.problem, null, 'sequences did not start over');
});

test('a file past what the sinks had kept is used as it is', () => {
  const dir = tempDir();
  SequenceReservation.open(dir, { block: BLOCK });
  const r = SequenceReservation.open(dir, { block: BLOCK, published: 60 });
  assert.equal([r.first, r.behind], [101, null]);
});

test('a damaged file starts over at 1 and says so; the reservation is written anew', () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'sequence.json'), '{"next_sequence": "x"}');
  const r = SequenceReservation.open(dir, { block: BLOCK });
  assert.is(r.first, 1);
  assert.match(r.problem ?? '', 'is damaged');
  assert.equal(stored(dir), { next_sequence: 101 });
});

test('a state_dir that cannot be written leaves sequences to start over, with the reason', () => {
  const dir = path.join(tempDir(), 'not-a-dir');
  fs.writeFileSync(dir, 'a file where the state_dir should be');
  const r = SequenceReservation.open(dir, { block: BLOCK });
  assert.is(r.first, 1);
  assert.match(r.problem ?? '', 'cannot be');
  r.keepAhead(1000);
  r.close(1000);
});

test('a block that could not be reserved (a full disk) is tried again at the next tick, and the spell told at its start and end', async () => {
  const dir = tempDir();
  const told: string[] = [];
  const r = SequenceReservation.open(dir, { block: BLOCK, onProblem: (p) => told.push(`problem: ${p}`), onRecovered: (m) => told.push(`recovered: ${m}`) });
  // A directory where the file goes: its rename fails, as a write on a full disk does.
  fs.rmSync(path.join(dir, 'sequence.json'));
  fs.mkdirSync(path.join(dir, 'sequence.json'));
  r.keepAhead(60);
  await waitFor(() => (told.length > 0 && !fs.readdirSync(dir).some((f) => f.endsWith('.tmp')) ? true : undefined), 5000, 'the failed write');
  assert.is(told.length, 1);
  assert.match(told[0]!, /^problem: .*sequence\.json cannot be written/);
  fs.rmdirSync(path.join(dir, 'sequence.json'));
  r.keepAhead(60);
  await waitFor(() => (fs.existsSync(path.join(dir, 'sequence.json')) ? true : undefined), 5000, 'the next block reserved');
  assert.equal(stored(dir), { next_sequence: 201 });
  await waitFor(() => (told.length === 2 ? true : undefined), 5000, 'the end told');
  assert.match(told[1]!, /^recovered: .*sequence\.json is written again/);
});

test.run();
