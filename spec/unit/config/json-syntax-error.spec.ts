import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { findJsonSyntaxError } from '../../../actors/config/json-syntax-error.js';

const CASES: [string, string, [number, number, string]][] = [
  ['a trailing comma in an array', '[\n  {"a": 1},\n]', [2, 11, "a trailing comma before ']' (JSON allows none)"]],
  ['a trailing comma in an object', '{"a": 1,\n}', [1, 8, "a trailing comma before '}' (JSON allows none)"]],
  ['a missing comma', '{"a": 1\n "b": 2}', [2, 2, "',' or '}' expected here"]],
  ['an unquoted property name', '{ a: 1 }', [1, 3, 'a property name in double quotes expected here']],
  ['a missing colon', '{"a" 1}', [1, 6, "':' after the property name expected here"]],
  ['an early end', '{"a": [1, 2', [1, 12, "the file ends where ',' or ']' is expected"]],
  ['an empty file', '', [1, 1, 'the file ends where a value is expected']],
  ['a bare word', '{"a": yes}', [1, 7, 'a value is expected here (a string in double quotes, a number, an object, an array, true, false or null)']],
  ['an unclosed string', '{"a": "b}', [1, 7, 'a string that is never closed with \'"\'']],
  ['a line break in a string', '{"a": "b\n"}', [1, 9, 'a line break inside a string (a missing \'"\'?)']],
  ['a bad escape', '{"a": "\\x"}', [1, 8, 'an invalid escape inside a string (allowed: \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)']],
  ['a leading zero', '[01]', [1, 2, 'an invalid number']],
  ['text after the document', '{}\n{}', [2, 1, 'more text after the end of the document']],
  ['a byte order mark', '\ufeff{}', [1, 1, 'a byte order mark (BOM) before the document; save the file as UTF-8 without BOM']],
];

for (const [name, text, [line, column, reason]] of CASES) {
  test(`${name}: line ${line}, column ${column}`, () => {
    assert.throws(() => JSON.parse(text));
    assert.equal(findJsonSyntaxError(text), { line, column, reason });
  });
}

test('finds nothing wrong in what JSON.parse reads', () => {
  fc.assert(fc.property(fc.json(), (text) => findJsonSyntaxError(text) === null));
});

test('finds an error exactly where JSON.parse refuses, in texts one edit away from JSON', () => {
  const edited = fc
    .tuple(fc.json(), fc.nat(), fc.constantFrom('', ',', ']', '}', '"', ':', '\\', '\n', 'x', '0', ' '), fc.nat(3))
    .map(([text, at, insert, cut]) => {
      const i = at % (text.length + 1);
      return text.slice(0, i) + insert + text.slice(i + cut);
    });
  fc.assert(
    fc.property(edited, (text) => {
      let parses = true;
      try {
        JSON.parse(text);
      } catch {
        parses = false;
      }
      return parses === (findJsonSyntaxError(text) === null);
    }),
    { numRuns: 2000 },
  );
});

test('names no character of the text in a reason', () => {
  const found = findJsonSyntaxError('{"api_key": s3cret}');
  assert.ok(found);
  assert.not.ok(JSON.stringify(found).includes('s3cret'));
});

test.run();
