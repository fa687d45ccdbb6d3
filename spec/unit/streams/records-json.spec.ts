import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { joinSlices, recordSlices } from '../../../streams/records-json.js';
import { RECORDS_PER_SLICE, SLICE_CHARS } from '../../../streams/text-slices.js';
import type { FlowRecord } from '../../../streams/contract.js';
import { activeRecord, countedRecords } from '../flows/fixtures.js';
import { turnsDuring } from './turns.js';

const records = (n: number) => Array.from({ length: n }, (_, i) => activeRecord(`f-${i}`));

/** The listing's JSON holds `expected`, field for field. */
function assertListed(json: string, expected: readonly FlowRecord[], message?: string): void {
  assert.equal(JSON.parse(json), JSON.parse(JSON.stringify(expected)), message);
}

test('the joined slices are JSON.stringify of the records, whatever the slicing', async () => {
  for (const n of [0, 1, RECORDS_PER_SLICE, RECORDS_PER_SLICE + 1, 3 * RECORDS_PER_SLICE - 5]) {
    const all = records(n);
    assert.is(await joinSlices(recordSlices(all)), JSON.stringify(all), `${n} records`);
  }
});

test('the event loop turns between slices, not within one', async () => {
  assert.is(await turnsDuring(() => joinSlices(recordSlices(records(3 * RECORDS_PER_SLICE)))), 2, 'three slices, two turns');
  assert.is(await turnsDuring(() => joinSlices(recordSlices(records(RECORDS_PER_SLICE)))), 0, 'one slice is written at once');
});

test('listings under way together serialize one slice between them per turn', async () => {
  // Three listings of two slices: the first slices at once, the second ones a turn each.
  const listings = () => Promise.all([0, 1, 2].map(() => joinSlices(recordSlices(records(2 * RECORDS_PER_SLICE)))));
  assert.is(await turnsDuring(listings), 3);
});

test('a record listed again is not serialized again, and lists the same', async () => {
  const { records, serializations } = countedRecords(RECORDS_PER_SLICE + 3);
  const first = await joinSlices(recordSlices(records));
  assert.is(serializations(), records.length);
  assert.is(await joinSlices(recordSlices(records)), first);
  assert.is(serializations(), records.length, 'each record serialized once');
  const revised = { ...records[0]!, revision: records[0]!.revision + 1 };
  assertListed(await joinSlices(recordSlices([revised, records[1]!])), [revised, records[1]!]);
});

test('records listed before are taken by text, not count: a table of idle flows lists in few turns', async () => {
  const all = records(3 * RECORDS_PER_SLICE);
  assert.ok(JSON.stringify(all).length < SLICE_CHARS);
  await joinSlices(recordSlices(all));
  assert.is(await turnsDuring(() => joinSlices(recordSlices(all))), 0, 'listed again: one slice');
});

test('a slice ends at SLICE_CHARS of text', async () => {
  const large = [0, 1, 2].map((i) => ({ ...activeRecord(`f-${i}`), target: { host: 'h'.repeat(SLICE_CHARS / 2), port: 80 } }) as FlowRecord);
  const slices: string[] = [];
  for await (const slice of recordSlices(large)) slices.push(slice);
  assert.is(slices.length, 2, 'two records reach SLICE_CHARS');
  assertListed(`[${slices.join(',')}]`, large);
});

test('stopped, the slices end before the next one is written', async () => {
  let asked = 0;
  const slices: string[] = [];
  for await (const slice of recordSlices(records(3 * RECORDS_PER_SLICE), () => ++asked === 1)) slices.push(slice);
  assert.is(slices.length, 1);
  assert.is(asked, 1);
});

test.run();
