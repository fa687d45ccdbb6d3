import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonNumber, plainString } from '../../../streams/json-text.js';

test('a string called plain is one JSON.stringify writes as it is between quotes', () => {
  const strings = ['', 'socks-in', 'exämple.com', '日本', '😀', 'a"b', 'a\\b', 'line\nbreak', '\u0000', '\u001f', '\u007f', '\ud800', 'x\udfffy', '\u2028'];
  for (const s of strings) if (plainString(s)) assert.is(`"${s}"`, JSON.stringify(s), JSON.stringify(s));
  assert.equal(strings.filter(plainString), ['', 'socks-in', 'exämple.com', '日本', '\u007f', '\u2028']);
});

test('a number is written as JSON.stringify writes it, a non-finite one as null', () => {
  for (const n of [0, -0, 1.5, 1e21, -7]) assert.is(jsonNumber(n), JSON.stringify(n));
  for (const n of [NaN, Infinity, null]) assert.is(jsonNumber(n), 'null');
});

test.run();
