import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addString, Pieces } from '../../../streams/text-pieces.js';

test('joins the pieces of each text apart, a shorter one after a longer one included', () => {
  const pieces = new Pieces();
  const long = pieces.joined((out) => ['a', 'b', 'c', 'd'].forEach((p) => out.add(p)));
  const short = pieces.joined((out) => out.add('x'));
  assert.equal([long, short], ['abcd', 'x']);
});

test('length counts the units added to the text so far', () => {
  const pieces = new Pieces();
  const lengths: number[] = [];
  pieces.joined((out) => {
    out.add('{"a":');
    lengths.push(out.length);
    addString(out, 'é"');
    lengths.push(out.length);
  });
  assert.equal(lengths, [5, 5 + JSON.stringify('é"').length]);
});

test('a writer that throws leaves nothing behind for the next text', () => {
  const pieces = new Pieces();
  assert.throws(() =>
    pieces.joined((out) => {
      out.add('left over');
      throw new TypeError('not a string');
    }),
  );
  assert.is(pieces.joined((out) => out.add('next')), 'next');
});

test('addString writes a string or null as JSON.stringify does', () => {
  const values = ['', 'socks-in', 'a"b', 'line\nbreak', '\ud800', '😀', null];
  assert.equal(
    values.map((v) => new Pieces().joined((out) => addString(out, v))),
    values.map((v) => JSON.stringify(v)),
  );
});

test.run();
