import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ERROR_REGISTRY } from '../../../actors/errors/error-codes.js';
import { EXIT } from '../../../cli/exit-codes.js';

// dist/spec/unit/errors/ → the repository root holds docs/.
const doc = (name: string): string => readFileSync(new URL(`../../../../docs/${name}`, import.meta.url), 'utf8');
const ERROR_DOC = doc('error-codes.md');

/** The cells of every table row of `text` whose first cell is `first`'s shape. */
function rows(text: string, first: RegExp): string[][] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) => line.slice(1, -1).split('|').map((cell) => cell.trim()))
    .filter((cells) => first.test(cells[0] ?? ''));
}

const CODE = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/;
const groups = Object.entries(ERROR_REGISTRY) as [keyof typeof ERROR_REGISTRY, Record<string, unknown>][];
const allCodes = groups.flatMap(([, codes]) => Object.keys(codes));

test('every code is upper snake case and unique across all groups, even ignoring case', () => {
  for (const code of allCodes) assert.match(code, CODE, code);
  const seen = new Map<string, number>();
  for (const code of allCodes) seen.set(code.toLowerCase(), (seen.get(code.toLowerCase()) ?? 0) + 1);
  assert.equal([...seen].filter(([, n]) => n > 1).map(([code]) => code), [], 'codes in more than one place');
});

test('every code but the flow failures is documented once in docs/error-codes.md, as the registry says', () => {
  const documented = rows(ERROR_DOC, CODE);
  assert.is(new Set(documented.map((r) => r[0])).size, documented.length, 'a code is listed twice');
  const byCode = new Map(documented.map((r) => [r[0]!, r.slice(1)]));
  for (const [group, codes] of groups) {
    if (group === 'flow_failure') continue;
    for (const [code, entry] of Object.entries(codes)) {
      const cells = typeof entry === 'string' ? [entry] : [String((entry as { status: number }).status), (entry as { title: string }).title];
      assert.equal(byCode.get(code), cells, `${group} ${code}`);
    }
  }
  const registered = new Set(allCodes);
  assert.equal(documented.map((r) => r[0]!).filter((code) => !registered.has(code)), [], 'documented but not registered');
});

test('the flow failures are those docs/failure-codes.md lists', () => {
  const listed = rows(doc('failure-codes.md'), CODE).map((r) => r[0]);
  assert.equal(listed.sort(), Object.keys(ERROR_REGISTRY.flow_failure).sort());
});

test('every CLI exit code is documented with its name', () => {
  const documented = rows(ERROR_DOC, /^\d+$/).map((r) => [Number(r[0]), r[1]]);
  assert.equal(documented, Object.entries(EXIT).map(([name, exit]) => [exit, name]));
});

test.run();
