import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatProbe, summarizeProbe, type ProbeSample } from './limits-report.js';

const answers = (ms: number[], bytes = 10): ProbeSample[] => ms.map((m) => ({ ms: m, bytes }));

test('percentiles are nearest-rank over the answered requests', () => {
  const ms = Array.from({ length: 100 }, (_, i) => i + 1);
  const s = summarizeProbe('health', answers(ms), 100);
  assert.equal([s.requests, s.failed, s.p50Ms, s.p99Ms, s.maxMs], [100, 0, 50, 99, 100]);
  assert.ok(s.met);
});

test('a p99 at the budget misses it', () => {
  const s = summarizeProbe('flows', answers([1, 2, 100]), 100);
  assert.is(s.p99Ms, 100);
  assert.not.ok(s.met);
});

test('one failed request misses the verdict however fast the rest were, and the first reason is kept', () => {
  const s = summarizeProbe('health', [...answers([1, 1, 1]), { failed: 'ECONNRESET' }, { failed: 'timeout' }], 100);
  assert.equal([s.requests, s.failed, s.firstFailure, s.p99Ms], [5, 2, 'ECONNRESET', 1]);
  assert.not.ok(s.met);
  assert.match(formatProbe(s, 100), /^health: 5 requests, 2 failed \(first: ECONNRESET\), .*: MISSED/);
});

test('no answer at all has no percentiles and misses', () => {
  const s = summarizeProbe('flows', [{ failed: 'refused' }], 100);
  assert.equal([s.p50Ms, s.p99Ms, s.maxMs, s.maxBytes, s.met], [null, null, null, 0, false]);
});

test('the largest answer is reported, and the line states the figures', () => {
  const s = summarizeProbe('flows', [{ ms: 2, bytes: 5 }, { ms: 4, bytes: 4_000_000 }], 100);
  assert.is(s.maxBytes, 4_000_000);
  assert.is(formatProbe(s, 100), 'flows: 2 requests, 0 failed, p50 2.0 ms, p99 4.0 ms, max 4.0 ms, answers up to 4000000 B: met (p99 < 100 ms)');
});

test.run();
