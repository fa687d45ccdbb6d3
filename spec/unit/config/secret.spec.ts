import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../../actors/config/load-config.js';
import { formatProblem } from '../../../actors/config/problems.js';
import { Secret } from '../../../actors/config/secret.js';
import { designExample, EXAMPLE_ENV, minimalConfig } from './fixtures.js';

test('reveal() returns the value', () => {
  assert.is(new Secret('s3cret').reveal(), 's3cret');
});

test('a secret is redacted in JSON, inspect, String and template strings', () => {
  const secret = new Secret('s3cret');
  assert.is(JSON.stringify({ secret }), '{"secret":"[redacted]"}');
  assert.is(inspect({ secret }), '{ secret: [redacted] }');
  assert.is(String(secret), '[redacted]');
  assert.is(`${secret}`, '[redacted]');
});

test('no secret of a parsed config shows in its JSON or inspect output', () => {
  const result = parseConfig(designExample(), { env: EXAMPLE_ENV });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  const outputs = [JSON.stringify(result.config), inspect(result.config, { depth: Infinity })];
  for (const out of outputs) {
    for (const value of Object.values(EXAMPLE_ENV)) assert.not.ok(out.includes(value), `${value} leaked`);
    assert.ok(out.includes('[redacted]'));
  }
});

test('reads a file secret relative to baseDir and trims the trailing newline', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-secret-'));
  try {
    fs.mkdirSync(path.join(dir, 'keys'));
    fs.writeFileSync(path.join(dir, 'keys/api'), 'from-file-0123456789\n');
    const raw = minimalConfig();
    raw.control.api_key = { file: 'keys/api' };
    const result = parseConfig(raw, { baseDir: dir, env: {} });
    assert.is(result.ok && result.config.control.api_key.reveal(), 'from-file-0123456789');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('reports an unreadable secret file with its path', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-secret-'));
  try {
    const raw = minimalConfig();
    raw.control.api_key = { file: 'missing' };
    const result = parseConfig(raw, { baseDir: dir, env: {} });
    assert.equal(result.ok ? [] : result.problems.map(formatProblem), [
      `control.api_key: cannot read secret file ${path.join(dir, 'missing')} (ENOENT)`,
    ]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('rejects empty secrets and malformed secret objects without echoing them', () => {
  const raw = minimalConfig();
  raw.control.api_key = '';
  raw.outbounds.push({ type: 'socks', tag: 's', server: 'h', port: 1, username: 'u', password: { value: 'hunter2' } });
  raw.inbounds = [{ type: 'http', tag: 'h', port: 0, users: [{ username: 'u', password: { env: 'EMPTY' } }] }];
  const result = parseConfig(raw, { env: { EMPTY: '' } });
  const found = result.ok ? [] : result.problems.map(formatProblem);
  assert.equal(found, [
    'control.api_key: secret is empty',
    'inbounds[0].users[0].password: environment variable EMPTY is empty',
    'outbounds[1].password: must be a string, { "env": NAME } or { "file": PATH }',
  ]);
  assert.not.ok(found.join('\n').includes('hunter2'));
});

test('reports a wrong-typed inline password without echoing it', () => {
  const raw = minimalConfig();
  raw.control.api_key = 123456789;
  const result = parseConfig(raw, { env: {} });
  assert.not.ok(JSON.stringify(result).includes('123456789'));
});

test('redis.url is a secret: its password can come from an environment variable, and never shows', () => {
  const raw = designExample();
  raw.redis.url = { env: 'REDIS_URL' };
  const result = parseConfig(raw, { env: { ...EXAMPLE_ENV, REDIS_URL: 'redis://:pw-0xq@127.0.0.1:6379' } });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  assert.is(result.config.redis?.url?.reveal(), 'redis://:pw-0xq@127.0.0.1:6379');
  assert.not.ok(JSON.stringify(result.config).includes('pw-0xq'));
  const unset = parseConfig(raw, { env: EXAMPLE_ENV });
  assert.equal(unset.ok ? [] : unset.problems.map(formatProblem), ['redis.url: environment variable REDIS_URL is not set']);
  const wrong = parseConfig(raw, { env: { ...EXAMPLE_ENV, REDIS_URL: 'http://:pw-0xq@127.0.0.1:6379' } });
  assert.equal(wrong.ok ? [] : wrong.problems.map(formatProblem), ['redis.url: must be a redis:// or rediss:// URL']);
});

test('redis.cluster takes seed URLs, each a secret, instead of url; one of the two exactly', () => {
  const raw = designExample() as unknown as { redis: Record<string, unknown> };
  raw.redis = { cluster: ['redis://127.0.0.1:7000', { env: 'SEED_2' }] };
  const result = parseConfig(raw, { env: { ...EXAMPLE_ENV, SEED_2: 'redis://:pw-0xc@127.0.0.1:7001' } });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  assert.equal(result.config.redis?.cluster?.map((s) => s.reveal()), ['redis://127.0.0.1:7000', 'redis://:pw-0xc@127.0.0.1:7001']);
  assert.not.ok(JSON.stringify(result.config).includes('pw-0xc'));
  const problems = (redis: unknown): string[] => {
    const r = parseConfig({ ...raw, redis }, { env: EXAMPLE_ENV });
    return r.ok ? [] : r.problems.map(formatProblem);
  };
  const oneOf = 'redis: takes exactly one of url (a standalone Redis) and cluster (a Redis Cluster)';
  assert.equal(problems({ url: 'redis://127.0.0.1:6379', cluster: ['redis://127.0.0.1:7000'] }), [oneOf]);
  assert.equal(problems({}), [oneOf]);
  assert.equal(problems({ cluster: [] }), ['redis.cluster: must not be empty']);
  assert.equal(problems({ cluster: ['http://127.0.0.1:7000'] }), ['redis.cluster[0]: must be a redis:// or rediss:// URL']);
});

test('an API key shorter than 16 characters is refused, inline or from the environment, without echoing it', () => {
  for (const [api_key, env] of [['short-key-1', {}], [{ env: 'KEY' }, { KEY: 'short-key-2' }]] as const) {
    const raw = minimalConfig();
    raw.control.api_key = api_key;
    const result = parseConfig(raw, { env });
    const found = result.ok ? [] : result.problems.map(formatProblem);
    assert.equal(found, ['control.api_key: must be at least 16 characters (it is 11)']);
  }
  const raw = minimalConfig();
  raw.control.api_key = '0123456789abcdef';
  assert.ok(parseConfig(raw, { env: {} }).ok);
});

test('lenient: a short API key is taken, for an offline reader that only looks up paths', () => {
  const raw = minimalConfig();
  raw.control.api_key = 'k';
  const result = parseConfig(raw, { env: {}, lenientSecrets: true });
  assert.ok(result.ok && result.config.control.api_key.reveal() === 'k');
});

test('lenient: a secret that cannot be read stands as an empty one, for an offline reader', () => {
  const raw = designExample();
  raw.redis.url = { env: 'REDIS_URL' };
  const result = parseConfig(raw, { env: {}, lenientSecrets: true });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  assert.is(result.config.redis?.url?.reveal(), '');
  assert.is(result.config.control.api_key.reveal(), '');
});

test.run();
