import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../../actors/config/load-config.js';
import { formatProblem } from '../../../actors/config/problems.js';
import { minimalConfig } from '../config/fixtures.js';

const BASE = path.join(os.tmpdir(), 'weir-hook-config');

test('ipc_hook is optional and absent by default', () => {
  const result = parseConfig(minimalConfig(), { baseDir: BASE, env: {} });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  assert.not.ok('ipc_hook' in result.config);
});

test('ipc_hook resolves its socket path against the config file and defaults timeout_ms to 200', () => {
  const result = parseConfig({ ...minimalConfig(), ipc_hook: { path: 'run/hook.sock' } }, { baseDir: BASE, env: {} });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  assert.equal(result.config.ipc_hook, { path: path.join(BASE, 'run/hook.sock'), timeout_ms: 200 });
});

test('ipc_hook refuses an empty path, a bad timeout and unknown keys', () => {
  const result = parseConfig({ ...minimalConfig(), ipc_hook: { path: '', timeout_ms: 0, retry: 1 } }, { baseDir: BASE, env: {} });
  assert.equal(result.ok ? [] : result.problems.map(formatProblem), [
    'ipc_hook.path: must not be empty',
    'ipc_hook.timeout_ms: must be at least 1',
    'ipc_hook.retry: unknown key (allowed: path, timeout_ms)',
  ]);
});

test('route sniffing and process lookup are on by default and can be turned off', () => {
  const result = parseConfig({ ...minimalConfig(), route: { sniff: false, sniff_timeout_ms: 50, process_lookup: false } }, { baseDir: BASE, env: {} });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  assert.equal([result.config.route.sniff, result.config.route.sniff_timeout_ms, result.config.route.process_lookup], [false, 50, false]);
});

test.run();
