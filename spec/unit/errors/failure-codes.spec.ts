import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FAILURE_CODES } from '../../../actors/errors/failure-codes.js';

// dist/spec/unit/errors/ → the repository root holds docs/.
const DOC = readFileSync(new URL('../../../../docs/failure-codes.md', import.meta.url), 'utf8');

interface DocRow {
  code: string;
  stage: string;
  meaning: string;
}

/** The rows of the `code | stage | meaning` table. */
function docRows(): DocRow[] {
  return DOC.split('\n')
    .map((line) => /^\|\s*([A-Z][A-Z0-9_]*)\s*\|\s*([^|]+?)\s*\|\s*([^|]+?)\s*\|\s*$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map(([, code = '', stage = '', meaning = '']) => ({ code, stage, meaning }));
}

const entries = Object.entries(FAILURE_CODES);

test('every code is an upper snake case string, unique even ignoring case', () => {
  for (const [code] of entries) assert.match(code, /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/, code);
  assert.is(new Set(entries.map(([code]) => code.toLowerCase())).size, entries.length);
});

test('every code has a stage and a meaning', () => {
  for (const [code, { stage, meaning }] of entries) {
    assert.match(stage, /^[a-z][a-z_]*$/, `${code} stage`);
    assert.ok(meaning.trim().length > 10, `${code} meaning`);
  }
});

test('the doc table has a header and lists each code once', () => {
  assert.match(DOC, /^\| code \| stage \| meaning \|$/m);
  const codes = docRows().map((r) => r.code);
  assert.is(new Set(codes).size, codes.length, 'a code is listed twice');
});

test('every registry code is in the doc with the same stage and meaning', () => {
  const rows = new Map(docRows().map((r) => [r.code, r]));
  for (const [code, { stage, meaning }] of entries) {
    assert.equal(rows.get(code), { code, stage, meaning }, code);
  }
});

test('no code in the doc is missing from the registry', () => {
  for (const { code } of docRows()) assert.ok(code in FAILURE_CODES, `${code} is documented but not in the registry`);
});

test.run();
