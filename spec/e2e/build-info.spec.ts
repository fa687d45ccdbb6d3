import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runWeir } from '../support/weir-bin.js';

interface BuildInfoJson {
  git_hash: string;
  features: string[];
  build_profile: string;
  binary_sha256: string;
}

test('build-info --json reports git_hash, features, build_profile and binary_sha256', async () => {
  const res = await runWeir(['build-info', '--json']);
  assert.is(res.code, 0, res.stderr);
  const info = JSON.parse(res.stdout) as BuildInfoJson;
  assert.equal(Object.keys(info).sort(), ['binary_sha256', 'build_profile', 'features', 'git_hash']);
  // `make build` stamps the commit; a plain tsc build would say "unknown".
  assert.match(info.git_hash, /^[0-9a-f]{40}$/);
  assert.match(info.binary_sha256, /^[0-9a-f]{64}$/);
  assert.ok(info.build_profile.length > 0);
  for (const feature of ['inbound.socks5', 'inbound.http', 'inbound.mixed', 'outbound.direct', 'outbound.block', 'sink.jsonl']) {
    assert.ok(info.features.includes(feature), `features lists ${feature}`);
  }
});

test('build-info reports the same values as text and is stable across calls', async () => {
  const [json, text, again] = await Promise.all([
    runWeir(['build-info', '--json']),
    runWeir(['build-info']),
    runWeir(['build-info', '--json']),
  ]);
  assert.is(text.code, 0, text.stderr);
  assert.is(again.stdout, json.stdout, 'the hash of an unchanged build does not move');
  const info = JSON.parse(json.stdout) as BuildInfoJson;
  const lines = Object.fromEntries(text.stdout.trim().split('\n').map((l) => [l.slice(0, 14).trim(), l.slice(15)]));
  assert.equal(lines, {
    git_hash: info.git_hash,
    features: info.features.join(', '),
    build_profile: info.build_profile,
    binary_sha256: info.binary_sha256,
  });
});

test.run();
