import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../../actors/config/load-config.js';
import { formatProblem } from '../../../actors/config/problems.js';
import { tempDir } from '../../support/temp-dir.js';
import { minimalConfig } from './fixtures.js';

const PASSWORD = 'pw-5e0c71a9';

/** A config in `dir` whose redis section is `redis`: its problems, or its redis section. */
function parse(dir: string, redis: unknown) {
  const result = parseConfig({ ...minimalConfig(), redis }, { baseDir: dir, env: {} });
  return result.ok ? { redis: result.config.redis } : { problems: result.problems.map(formatProblem) };
}

test('redis.tls paths resolve against the config directory, and username is kept beside the URL', () => {
  const dir = tempDir('weir-redis-tls-');
  fs.mkdirSync(path.join(dir, 'pki'));
  for (const f of ['ca.pem', 'client.pem', 'client.key']) fs.writeFileSync(path.join(dir, 'pki', f), 'PEM');
  const parsed = parse(dir, { url: `rediss://:${PASSWORD}@redis.example:6380`, username: 'weir', tls: { ca: 'pki/ca.pem', cert: 'pki/client.pem', key: 'pki/client.key', servername: 'redis.example' } });
  assert.equal(parsed.redis?.tls, { ca: path.join(dir, 'pki/ca.pem'), cert: path.join(dir, 'pki/client.pem'), key: path.join(dir, 'pki/client.key'), servername: 'redis.example' });
  assert.is(parsed.redis?.username, 'weir');
});

test('an unreadable redis.tls file, tls on a redis:// URL, a user given twice and a cert without key are problems that never show the password', () => {
  const dir = tempDir('weir-redis-tls-');
  const missing = parse(dir, { url: `rediss://:${PASSWORD}@127.0.0.1:6380`, tls: { ca: 'nowhere/ca.pem' } });
  assert.equal(missing.problems, [`redis.tls.ca: cannot read ${path.join(dir, 'nowhere/ca.pem')} (ENOENT)`]);
  const plain = parse(dir, { url: `redis://:${PASSWORD}@127.0.0.1:6379`, tls: {} });
  assert.equal(plain.problems, ['redis.tls: applies to rediss:// URLs, and a URL is redis://']);
  const twice = parse(dir, { cluster: [`rediss://weir:${PASSWORD}@127.0.0.1:7000`], username: 'weir' });
  assert.equal(twice.problems, ['redis.username: is in the URL too: give the user once']);
  const half = parse(dir, { url: 'rediss://127.0.0.1:6380', tls: { cert: 'client.pem' } });
  assert.equal(half.problems, ['redis.tls: takes cert and key together']);
  const broken = parse(dir, { url: `rediss://u:${PASSWORD}@[::1`, username: 'weir', tls: {} });
  assert.equal(broken.problems, ['redis.url: must be a redis:// or rediss:// URL']);
  for (const found of [missing, plain, twice, broken]) assert.not.ok(JSON.stringify(found).includes(PASSWORD));
});

test.run();
