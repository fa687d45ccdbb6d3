import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfigFile } from '../../../actors/config/load-config.js';
import { formatProblem } from '../../../actors/config/problems.js';
import { designExample, EXAMPLE_ENV } from './fixtures.js';

let dir = '';

test.before.each(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-load-'));
});

test.after.each(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

test('loads a file and resolves relative paths against its directory', () => {
  const file = path.join(dir, 'conf/weir.json');
  fs.mkdirSync(path.dirname(file));
  fs.writeFileSync(file, JSON.stringify(designExample()));
  const result = loadConfigFile(file, { env: EXAMPLE_ENV });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  assert.is(result.config.node.state_dir, path.join(dir, 'conf/state'));
  assert.is(result.config.log.file, path.join(dir, 'conf/state/weir.log'));
  assert.is(result.config.control.ipc, path.join(dir, 'conf/state/weir.sock'));
  const archive = result.config.event_sinks[0];
  assert.is(archive?.type === 'jsonl' ? archive.path : '', path.join(dir, 'conf/state/events.jsonl'));
  assert.ok(Object.isFrozen(result.config.node));
});

test('reports a missing file as a problem of the whole document', () => {
  const file = path.join(dir, 'absent.json');
  const result = loadConfigFile(file, { env: {} });
  assert.equal(result.ok ? [] : result.problems, [{ path: '', message: `cannot read config file ${file} (ENOENT)` }]);
});

test('reports invalid JSON with its line and column, never quoting the text', () => {
  const file = path.join(dir, 'bad.json');
  fs.writeFileSync(file, '{\n  "control": { "api_key": "s3cret-key", }\n}\n');
  const result = loadConfigFile(file, { env: {} });
  assert.equal(result.ok ? [] : result.problems.map(formatProblem), [
    `${file} is not valid JSON (line 2, column 39: a trailing comma before '}' (JSON allows none))`,
  ]);
});

test('does not quote the text around an unexpected token', () => {
  const file = path.join(dir, 'bad.json');
  fs.writeFileSync(file, '{"control": {"api_key": s3cret-key}}');
  const result = loadConfigFile(file, { env: {} });
  const text = JSON.stringify(result);
  assert.is(result.ok, false);
  assert.not.ok(text.includes('s3cret'));
});

test.run();
