import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatTable, median, summarize, type Samples } from './report.js';

test('median takes the middle value, or the mean of the two middle values', () => {
  assert.is(median([5, 1, 3]), 3);
  assert.is(median([4, 1, 3, 2]), 2.5);
});

test('ratios are taken against the raw Node relay median', () => {
  const samples: Samples = { throughput: { 'node-pipe': [4, 6, 5], dante: [10, 10, 10] }, rate: {}, rate_cpu: {}, idle: {} };
  const summary = summarize(samples);
  assert.equal(summary.throughput.peers.dante, { samples: [10, 10, 10], median: 10, ratio: 2, paired: 2 });
  assert.is(summary.throughput.weir, null);
});

test('weir passes at exactly the target and misses just beyond it', () => {
  const at: Samples = { throughput: { 'node-pipe': [10], weir: [9] }, rate: { 'node-pipe': [10], weir: [8] }, rate_cpu: {}, idle: { 'node-pipe': [10], weir: [20] } };
  const summary = summarize(at);
  assert.equal(summary.throughput.weir, { target: '≥0.9×', pass: true });
  assert.equal(summary.rate.weir, { target: '≥0.8×', pass: true });
  assert.equal(summary.idle.weir, { target: '≤2×', pass: true });
  const beyond: Samples = { throughput: { 'node-pipe': [10], weir: [8.9] }, rate: { 'node-pipe': [10], weir: [7.9] }, rate_cpu: {}, idle: { 'node-pipe': [10], weir: [20.1] } };
  const missed = summarize(beyond);
  assert.is(missed.throughput.weir?.pass, false);
  assert.is(missed.rate.weir?.pass, false);
  assert.is(missed.idle.weir?.pass, false);
});

test('the table shows median, range, both ratios and verdict of weir', () => {
  const samples: Samples = { throughput: {}, rate: { 'node-pipe': [3000, 3400], weir: [2000, 2400, 2600] }, rate_cpu: {}, idle: {} };
  const lines = formatTable(summarize(samples)).split('\n');
  assert.equal(lines.length, 3);
  // Paired: 2000/3000 and 2400/3400, median 0.686; round 3 has no node-pipe value.
  assert.match(lines[2] ?? '', /^\s+weir\s+2400\s+2000–2600\s+3\s+0\.75×\s+0\.69×\s+≥0\.8×\s+MISS$/);
});

test('the verdict uses the ratios of rounds measured together, pairing by round across holes', () => {
  // A slow second round for both: medians say 0.75×, every round says 0.8× or more.
  const samples: Samples = {
    throughput: {},
    rate: { 'node-pipe': [4000, 2000, undefined, 4000], weir: [3200, 1700, 3900, 3000] },
    rate_cpu: {},
    idle: {},
  };
  const summary = summarize(samples);
  assert.is(summary.rate.peers.weir?.ratio, 3100 / 4000);
  assert.is(summary.rate.peers.weir?.paired, 0.8);
  assert.equal(summary.rate.weir, { target: '≥0.8×', pass: true });
  assert.equal(summary.rate.peers.weir?.samples, [3200, 1700, 3900, 3000]);
});

test('proxy CPU per connection is shown with its ratios and no verdict', () => {
  const samples: Samples = { throughput: {}, rate: {}, rate_cpu: { 'node-pipe': [250, 300], weir: [400, 420] }, idle: {} };
  const summary = summarize(samples);
  assert.is(summary.rate_cpu.peers.weir?.paired, 1.5);
  assert.is(summary.rate_cpu.weir, null);
  const lines = formatTable(summary).split('\n');
  assert.match(lines[2] ?? '', /^\s+weir\s+410\s+400–420\s+2\s+1\.49×\s+1\.50×$/);
});

test.run();
