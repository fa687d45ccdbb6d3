import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { joinSlices, RECORDS_PER_SLICE, recordSlices } from '../../../streams/records-json.js';
import { activeRecord } from '../flows/fixtures.js';

const records = (n: number) => Array.from({ length: n }, (_, i) => activeRecord(`f-${i}`));

/** How many turns of the event loop pass while `work` runs. */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let done = false;
  const count = (): void => {
    turns += 1;
    if (!done) setImmediate(count);
  };
  setImmediate(count);
  await work();
  done = true;
  return turns;
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

test('stopped, the slices end before the next one is written', async () => {
  let asked = 0;
  const slices: string[] = [];
  for await (const slice of recordSlices(records(3 * RECORDS_PER_SLICE), () => ++asked === 1)) slices.push(slice);
  assert.is(slices.length, 1);
  assert.is(asked, 1);
});

test.run();
