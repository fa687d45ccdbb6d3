import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatComparisons, record, summarizeComparison, type Comparison } from './compare.js';

function hop(): Comparison {
  return { label: 'hop throughput', unit: 'Gbit/s', digits: 2, baseline: 'direct', samples: { direct: [], via: [] } };
}

test('every side is taken against the baseline median', () => {
  const c = hop();
  for (const v of [2, 4, 3]) record(c, 'direct', v);
  for (const v of [1.5, 1.2]) record(c, 'via', v);
  const s = summarizeComparison(c);
  assert.equal(s.sides.direct, { samples: [2, 4, 3], median: 3, ratio: 1 });
  assert.equal(s.sides.via, { samples: [1.5, 1.2], median: 1.35, ratio: 0.45 });
});

test('without a baseline, or with no baseline value, ratios are null', () => {
  const listed: Comparison = { label: 'enqueue', unit: 'µs/event', digits: 2, baseline: null, samples: { embedded: [10] } };
  assert.is(summarizeComparison(listed).sides.embedded?.ratio, null);
  const c = hop();
  record(c, 'via', 1);
  assert.equal(summarizeComparison(c).sides, { via: { samples: [1], median: 1, ratio: null } });
});

test('the table leaves out sides without values and names the baseline in the ratio', () => {
  const c: Comparison = { ...hop(), samples: { direct: [2, 2.5], via: [1], skipped: [] } };
  const lines = formatComparisons([c]).split('\n');
  assert.equal(lines.length, 3);
  assert.match(lines[1] ?? '', /^hop throughput \(Gbit\/s\)\s+direct\s+2\.25\s+2\.00–2\.50\s+2\s+1\.00× direct$/);
  assert.match(lines[2] ?? '', /^\s+via\s+1\.00\s+1\.00–1\.00\s+1\s+0\.44× direct$/);
});

test.run();
