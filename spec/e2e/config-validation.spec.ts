import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { e2eConfig } from '../support/node-config.js';
import { startRedisServer } from '../support/redis-server.js';
import { tempDir } from '../support/temp-dir.js';
import { runWeir } from '../support/weir-bin.js';

const dir = tempDir();

function writeConfig(name: string, config: unknown): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

/** One problem of each kind validation must find: unknown type, duplicate tag, unknown tag, cycle. */
const BAD = {
  node: { id: 'bad', state_dir: path.join(dir, 'state') },
  control: { listen: '127.0.0.1:0', api_key: 'k-0123456789abcdef' },
  inbounds: [
    { type: 'socks', tag: 'in', port: 1080 },
    { type: 'http', tag: 'in', port: 1081 },
    { type: 'ftp', tag: 'ftp-in', port: 21 },
  ],
  outbounds: [
    { type: 'direct', tag: 'direct' },
    { type: 'selector', tag: 'a', members: ['b'] },
    { type: 'selector', tag: 'b', members: ['a', 'direct'] },
  ],
  route: { rules: [{ domain: ['x.test'], outbound: 'nowhere' }], final: 'direct' },
};

const EXPECTED_LINES = [
  'inbounds[2].type: unknown inbound type "ftp" (allowed: socks, http, mixed)',
  'inbounds[1].tag: duplicate tag "in" (first used at inbounds[0])',
  'route.rules[0].outbound: unknown tag "nowhere"',
  'outbounds[1].members[0]: reference cycle "a" -> "b" -> "a"',
];

function problemLines(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('  '))
    .map((line) => line.trim());
}

test('validate rejects an invalid config with every problem and its JSON path', async () => {
  const file = writeConfig('bad.json', BAD);
  const res = await runWeir(['validate', file]);
  assert.is(res.code, 1);
  assert.is(res.stderr.split('\n')[0], `${file}: invalid configuration (4 problems)`);
  assert.equal(problemLines(res.stderr).sort(), [...EXPECTED_LINES].sort());
});

test('run refuses the same invalid config with the same problem lines and starts nothing', async () => {
  const file = writeConfig('bad.json', BAD);
  const [validated, ran] = await Promise.all([runWeir(['validate', file]), runWeir(['run', '-c', file])]);
  assert.is(ran.code, 1);
  assert.is(ran.stderr, validated.stderr, 'run prints what validate prints');
  assert.not.ok(fs.existsSync(path.join(dir, 'state', 'events.jsonl')), 'no sink was opened');
});

test('validate --json lists the problems as path and message', async () => {
  const res = await runWeir(['validate', '--json', writeConfig('bad.json', BAD)]);
  assert.is(res.code, 1);
  const body = JSON.parse(res.stdout) as { valid: boolean; problems: { path: string; message: string }[] };
  assert.is(body.valid, false);
  assert.equal(body.problems.map((p) => `${p.path}: ${p.message}`).sort(), [...EXPECTED_LINES].sort());
});

test('validate accepts a valid config with exit 0', async () => {
  const stateDir = tempDir();
  const file = writeConfig('good.json', e2eConfig({ stateDir, inbounds: [{ type: 'mixed', tag: 'mixed-in', listen: '127.0.0.1', port: 0 }] }));
  const res = await runWeir(['validate', file]);
  assert.is(res.code, 0, res.stderr);
  assert.is(res.stdout, `${file}: valid\n`);
  assert.is(res.stderr, '');
});

test('run and validate report a missing config file the same way', async () => {
  const file = path.join(dir, 'missing.json');
  const [validated, ran] = await Promise.all([runWeir(['validate', file]), runWeir(['run', '-c', file])]);
  assert.is(validated.code, 1);
  assert.is(ran.code, 1);
  assert.is(ran.stderr, validated.stderr);
  assert.match(validated.stderr, /ENOENT/);
});

/** What the node names Redis keys, files and headers by, each with a lone surrogate JSON carries as `\udXXX`. */
function loneSurrogates(stateDir: string, redisUrl: string): Record<string, unknown> {
  return {
    node: { id: 'edge-\ud800-1', state_dir: stateDir },
    control: { listen: '127.0.0.1:0', api_key: 'k-0123456789abcdef' },
    redis: { url: redisUrl },
    inbounds: [{ type: 'socks', tag: 'in\udfff', port: 0 }],
    outbounds: [{ type: 'direct', tag: 'direct' }],
    event_sinks: [
      { type: 'webhook', tag: 'hook\udc00', url: 'http://127.0.0.1:18080/ingest', token: 'hook-token' },
      { type: 'jsonl', tag: 'archive', path: path.join(stateDir, 'events-\ud83d.jsonl') },
    ],
  };
}

test('validate and run refuse SOCKS5 credentials over 255 bytes at their path, without their value', async () => {
  // RFC 1929 gives each one length byte: the node crashed on the first flow through such a hop.
  const username = 'u'.repeat(256);
  const password = 'p\u00e9'.repeat(150);
  const stateDir = path.join(dir, 'long-credentials');
  const file = writeConfig('long-credentials.json', {
    ...e2eConfig({ stateDir, inbounds: [{ type: 'socks', tag: 'in', listen: '127.0.0.1', port: 0 }] }),
    outbounds: [
      { type: 'direct', tag: 'direct' },
      { type: 'socks', tag: 'hop', server: '127.0.0.1', port: 1080, username, password },
      // An HTTP hop's Basic credentials have no such bound.
      { type: 'http', tag: 'http-hop', server: '127.0.0.1', port: 3128, username, password },
    ],
  });
  const [validated, ran] = await Promise.all([runWeir(['validate', file]), runWeir(['run', '-c', file])]);
  assert.is(validated.code, 1, validated.stdout);
  assert.equal(problemLines(validated.stderr).sort(), [
    'outbounds[1].password: a SOCKS5 password is at most 255 bytes (it is 450)',
    'outbounds[1].username: a SOCKS5 username is at most 255 bytes (it is 256)',
  ]);
  assert.is(ran.code, 1);
  assert.is(ran.stderr, validated.stderr, 'run prints what validate prints');
  assert.not.ok(validated.stderr.includes(password), 'the password is in no message');
});

const surrogateLine = (at: string, unit: string, index: number): string =>
  `${at}: must be well-formed Unicode: it has a lone UTF-16 surrogate (\\u${unit} at index ${index}), which Redis keys, file names and headers cannot carry`;

test('validate and run refuse a lone UTF-16 surrogate in node.id, a tag or a file name at its JSON path, and run opens nothing', async () => {
  // A real Redis: with it the old node ran on and told "Redis is unreachable (URI malformed)".
  const redis = await startRedisServer();
  try {
    const stateDir = path.join(dir, 'surrogates');
    // JSON.stringify writes a lone surrogate as its escape, as a hand-written config would.
    const file = writeConfig('surrogates.json', loneSurrogates(stateDir, redis.url));
    assert.match(fs.readFileSync(file, 'utf8'), '"edge-\\ud800-1"');
    const validated = await runWeir(['validate', file]);
    assert.is(validated.code, 1, validated.stdout);
    assert.equal(problemLines(validated.stderr).sort(), [
      surrogateLine('event_sinks[0].tag', 'dc00', 4),
      surrogateLine('event_sinks[1].path', 'd83d', path.join(stateDir, 'events-').length),
      surrogateLine('inbounds[0].tag', 'dfff', 2),
      surrogateLine('node.id', 'd800', 5),
    ].sort());
    const ran = await runWeir(['run', '-c', file], 15_000);
    assert.is(ran.code, 1);
    assert.is(ran.stderr, validated.stderr, 'run prints what validate prints');
    assert.not.ok(fs.existsSync(stateDir), 'nothing was opened in the state dir');
  } finally {
    await redis.close();
  }
});

test.run();
