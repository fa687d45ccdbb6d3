import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultConfig, ensureApiKey, parseConfig } from '../../../actors/config/load-config.js';
import { EVENT_TYPES } from '../../../streams/contract.js';

let dir = '';

test.before.each(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-default-'));
});

test.after.each(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

test('ensureApiKey creates a 32-byte base64url key with mode 0600 once', () => {
  const stateDir = path.join(dir, 'state');
  const first = ensureApiKey(stateDir);
  assert.is(first.created, true);
  assert.match(first.key, /^[A-Za-z0-9_-]{43}$/);
  assert.is(fs.statSync(path.join(stateDir, 'api_key')).mode & 0o777, 0o600);
  assert.equal(ensureApiKey(stateDir), { key: first.key, created: false });
  assert.equal(fs.readdirSync(stateDir), ['api_key']);
});

test('the built-in default parses with the generated key', () => {
  const stateDir = path.join(dir, 'state');
  const { key } = ensureApiKey(stateDir);
  const result = parseConfig(defaultConfig(stateDir), { env: {} });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  const { config } = result;
  assert.is(config.control.api_key.reveal(), key);
  assert.is(config.control.listen, '127.0.0.1:9090');
  assert.equal(config.inbounds, [{ type: 'mixed', tag: 'mixed-in', listen: '127.0.0.1', port: 7890 }]);
  assert.equal(config.outbounds, [
    { type: 'direct', tag: 'direct' },
    { type: 'block', tag: 'block' },
  ]);
  assert.equal(config.route, { mode: 'rule', rules: [], final: 'direct', sniff: true, sniff_timeout_ms: 300, block_private: false, process_lookup: false });
  assert.equal(config.event_sinks, [
    {
      type: 'jsonl',
      tag: 'archive',
      path: path.join(stateDir, 'events.jsonl'),
      events: EVENT_TYPES.filter((t) => t !== 'stats.sampled' && t !== 'flow.snapshot'),
      max_bytes: 67_108_864,
      keep_files: 5,
      fsync_interval_ms: 1000,
    },
  ]);
  assert.is(config.node.state_dir, stateDir);
});

test('the built-in default without a key file reports the missing file', () => {
  const stateDir = path.join(dir, 'state');
  const result = parseConfig(defaultConfig(stateDir), { env: {} });
  assert.equal(result.ok ? [] : result.problems, [
    { path: 'control.api_key', message: `cannot read secret file ${path.join(stateDir, 'api_key')} (ENOENT)` },
  ]);
});

test.run();
