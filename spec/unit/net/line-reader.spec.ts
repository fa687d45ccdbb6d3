import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LineReader } from '../../../actors/net/line-reader.js';

const b = (s: string): Buffer => Buffer.from(s, 'utf8');

test('splits one chunk into its lines and keeps the unfinished tail for later', () => {
  const r = new LineReader(100);
  assert.equal(r.push(b('{"a":1}\n{"b":2}\n{"c"')), { lines: ['{"a":1}', '{"b":2}'], overflow: false });
  assert.equal(r.push(b(':3}\n')), { lines: ['{"c":3}'], overflow: false });
});

test('joins a line split across many chunks, including inside a multi-byte character', () => {
  const r = new LineReader(100);
  const bytes = b('{"name":"Zürich"}\n');
  const cut = bytes.indexOf(0xc3) + 1;
  assert.equal(r.push(bytes.subarray(0, 3)), { lines: [], overflow: false });
  assert.equal(r.push(bytes.subarray(3, cut)), { lines: [], overflow: false });
  assert.equal(r.push(bytes.subarray(cut)), { lines: ['{"name":"Zürich"}'], overflow: false });
});

test('strips a CR before the newline and yields empty lines as empty strings', () => {
  const r = new LineReader(100);
  assert.equal(r.push(b('{"a":1}\r\n\n')), { lines: ['{"a":1}', ''], overflow: false });
});

test('accepts a line of exactly the cap', () => {
  const r = new LineReader(10);
  assert.equal(r.push(b(`${'x'.repeat(10)}\n`)), { lines: ['x'.repeat(10)], overflow: false });
});

test('reports overflow for a complete line over the cap, keeping the lines before it', () => {
  const r = new LineReader(10);
  assert.equal(r.push(b(`ok\n${'x'.repeat(11)}\nafter\n`)), { lines: ['ok'], overflow: true });
});

test('reports overflow as soon as an unfinished line passes the cap, without buffering it', () => {
  const r = new LineReader(10);
  assert.equal(r.push(b('x'.repeat(6))), { lines: [], overflow: false });
  assert.equal(r.push(b('x'.repeat(5))), { lines: [], overflow: true });
});

test('reads nothing more after an overflow', () => {
  const r = new LineReader(4);
  r.push(b('xxxxxxxx'));
  assert.equal(r.push(b('\n{}\n')), { lines: [], overflow: true });
});

test('midLine says whether a line has begun and not ended', () => {
  const r = new LineReader(100);
  assert.is(r.midLine, false);
  r.push(b('{"a":1}\n{"b"'));
  assert.is(r.midLine, true, 'a line left unfinished');
  r.push(b(':2}\r'));
  assert.is(r.midLine, true, 'a CR alone does not end it');
  r.push(b('\n'));
  assert.is(r.midLine, false, 'its newline ends it');
});

test.run();
