import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planSegment } from '../../../actors/sinks/jsonl-rotation.js';
import { LineEncoder } from '../../../actors/sinks/line-encoder.js';

test('encodes each line as UTF-8 followed by a newline and reports where each ends', () => {
  const { data, ends } = new LineEncoder().encode(['{"a":1}', '{"host":"büro.example"}', '{"e":"😀"}'], 0);
  assert.is(data.toString('utf8'), '{"a":1}\n{"host":"büro.example"}\n{"e":"😀"}\n');
  assert.equal(ends, [8, 8 + 25, 8 + 25 + 13]);
});

test('writes a line given in parts one part after the other', () => {
  const { data, ends } = new LineEncoder().encode([['{"a":', '"ü"', '}'], 'x', ['', 'y']], 0);
  assert.is(data.toString('utf8'), '{"a":"ü"}\nx\ny\n');
  assert.equal(ends, [11, 13, 15]);
});

test('starts at the given index', () => {
  const { data, ends } = new LineEncoder().encode(['x', 'yy', 'zzz'], 1);
  assert.is(data.toString('utf8'), 'yy\nzzz\n');
  assert.equal(ends, [3, 7]);
});

test('stops before a line that might pass 1 MiB at 3 bytes a unit, and takes a longer single line whole', () => {
  const encoder = new LineEncoder();
  const big = 'a'.repeat(100_000);
  // Line k is taken while 100001·k + 300001 ≤ 1048576: lines 0 to 7.
  const first = encoder.encode(Array.from({ length: 10 }, () => big), 0);
  assert.equal(first.ends, Array.from({ length: 8 }, (_, k) => 100_001 * (k + 1)));
  const huge = 'b'.repeat(3_000_000);
  const alone = encoder.encode([huge, 'c'], 0);
  assert.equal(alone.ends, [3_000_001]);
  assert.is(alone.data.length, 3_000_001);
  const after = encoder.encode(['c'], 0);
  assert.is(after.data.toString('utf8'), 'c\n');
});

test('planSegment counts bytes, not characters, against maxBytes', () => {
  const { ends } = new LineEncoder().encode(['ü'.repeat(10), 'ü'.repeat(10), 'a'], 0);
  // 21 bytes per ü-line: two of them do not fit in 40 bytes, the a-line fits after the second.
  assert.equal(planSegment(ends, 0, 0, 40), { rotateFirst: false, end: 1 });
  assert.equal(planSegment(ends, 1, 21, 40), { rotateFirst: true, end: 3 });
  assert.equal(planSegment(ends, 0, 0, 5), { rotateFirst: false, end: 1 });
});

test.run();
