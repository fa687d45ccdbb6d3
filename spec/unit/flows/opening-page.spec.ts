import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pageAfter } from '../../../actors/flows/opening-page.js';

const entries = (...openings: number[]): [number, string][] => openings.map((n) => [n, `f${n}`]);

test('a page holds the first `limit` entries after the cursor and names the next cursor', () => {
  assert.equal(pageAfter(entries(1, 2, 4, 7), 0, 2), { items: ['f1', 'f2'], next: 2 });
  assert.equal(pageAfter(entries(1, 2, 4, 7), 2, 2), { items: ['f4', 'f7'], next: null });
});

test('next is null when the page ends exactly at the last entry, or nothing follows the cursor', () => {
  assert.equal(pageAfter(entries(1, 2), 0, 2), { items: ['f1', 'f2'], next: null });
  assert.equal(pageAfter(entries(1, 2), 2, 5), { items: [], next: null });
  assert.equal(pageAfter(entries(), 0, 1), { items: [], next: null });
});

test('a cursor whose entry has gone keeps its place', () => {
  // The page before ended at 4; 4 and 5 have gone since, 9 came.
  assert.equal(pageAfter(entries(1, 6, 8, 9), 4, 2), { items: ['f6', 'f8'], next: 8 });
  assert.equal(pageAfter(entries(1, 6, 8, 9), 8, 2), { items: ['f9'], next: null });
});

test('a cursor past every entry gives an empty last page', () => {
  assert.equal(pageAfter(entries(1, 2, 3), 1000, 10), { items: [], next: null });
});

test.run();
