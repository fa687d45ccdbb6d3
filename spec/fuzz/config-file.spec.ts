import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../actors/config/load-config.js';
import { checkProperty } from '../support/fuzz.js';
import { assertProblems, nearValid, SECRET, validDoc } from '../support/fuzz-config.js';
import { tempDir } from '../support/temp-dir.js';

// A config document, whatever it holds: a config, or a refusal that lists problems by
// JSON path; never a throw, and never the document's secret in a message.

const SPEC_RUNS = 1000;
const baseDir = tempDir('weir-fuzz-config-');

function refusalOrConfig(doc: unknown): void {
  const result = parseConfig(doc, { baseDir, env: {} });
  if (result.ok) return;
  assertProblems(result.problems);
  for (const p of result.problems) assert.not.ok(p.message.includes(SECRET), `the secret in: ${p.message}`);
}

test('any JSON value parses to a config or a list of problems with paths', async () => {
  await checkProperty(fc.property(fc.jsonValue(), refusalOrConfig), SPEC_RUNS);
});

test('the config the edits start from is valid', () => {
  const result = parseConfig(validDoc(baseDir), { baseDir, env: {} });
  assert.equal(result.ok ? [] : result.problems, []);
});

test('a valid config with one to three parts replaced, removed or added parses to a config or problems', async () => {
  await checkProperty(fc.property(nearValid(baseDir), refusalOrConfig), SPEC_RUNS);
});

test.run();
