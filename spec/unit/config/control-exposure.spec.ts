import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isLoopbackHost } from '../../../actors/config/check-control.js';
import { parseConfig } from '../../../actors/config/load-config.js';
import type { ConfigProblem } from '../../../actors/config/problems.js';
import { designExample, EXAMPLE_ENV } from './fixtures.js';

function problems(control: Record<string, unknown>): ConfigProblem[] {
  const raw = designExample();
  raw['control'] = { ...raw['control'], ...control };
  const result = parseConfig(raw, { baseDir: '/etc/weir', env: EXAMPLE_ENV });
  return result.ok ? [] : result.problems;
}

const CLEARTEXT = /is reachable beyond this machine, and without control\.tls the API keys cross the network in cleartext/;

test('loopback is 127.0.0.0/8, ::1 and localhost; everything else is beyond this machine', () => {
  for (const host of ['127.0.0.1', '127.8.9.10', '::1', 'localhost', 'LOCALHOST']) assert.ok(isLoopbackHost(host), host);
  for (const host of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.5', 'node.example', '128.0.0.1']) assert.not.ok(isLoopbackHost(host), host);
});

test('a listen beyond loopback needs control.tls, or insecure_plaintext said by name', () => {
  const refused = problems({ listen: '0.0.0.0:9090' });
  assert.is(refused.length, 1);
  assert.is(refused[0]!.path, 'control.listen');
  assert.match(refused[0]!.message, CLEARTEXT);
  assert.equal(problems({ listen: '[::]:9090' }).map((p) => p.path), ['control.listen']);
  assert.equal(problems({ listen: '0.0.0.0:9090', insecure_plaintext: true }), []);
  assert.equal(problems({ listen: '0.0.0.0:9090', tls: { cert: 'c.pem', key: 'k.pem' } }), []);
  assert.equal(problems({ listen: '127.0.0.1:9090' }), []);
});

test('tls paths resolve against the config file', () => {
  const raw = designExample();
  raw['control'] = { ...raw['control'], tls: { cert: 'tls/c.pem', key: '/abs/k.pem', client_ca: 'ca.pem' } };
  const result = parseConfig(raw, { baseDir: '/etc/weir', env: EXAMPLE_ENV });
  assert.ok(result.ok);
  if (result.ok) assert.equal(result.config.control.tls, { cert: '/etc/weir/tls/c.pem', key: '/abs/k.pem', client_ca: '/etc/weir/ca.pem' });
});

test('keys need a unique id other than api_key, a scope, and a key of their own; no message shows a key', () => {
  const key = (id: string, secret: string, scope = 'read') => ({ id, key: secret, scope });
  const found = problems({
    keys: [key('grafana', 'grafana-key-0123456'), key('grafana', 'another-key-0123456'), key('noc', 'grafana-key-0123456', 'operate'), key('own', EXAMPLE_ENV.WEIR_API_KEY, 'admin')],
  });
  assert.equal(found, [
    { path: 'control.keys[1].id', message: 'duplicate id "grafana" (first used at control.keys[0])' },
    { path: 'control.keys[2].key', message: 'is the same key as control.keys[0].key: each key names one caller' },
    { path: 'control.keys[3].key', message: 'is the same key as control.api_key: each key names one caller' },
  ]);
  const shapes = problems({ keys: [key('api_key', 'grafana-key-0123456'), key('has space', 'short'), { id: 'x', key: 'grafana-key-0123456', scope: 'root' }] }).map((p) => p.path);
  assert.equal(shapes, ['control.keys[0].id', 'control.keys[1].id', 'control.keys[1].key', 'control.keys[2].scope']);
  assert.not.ok(JSON.stringify(found).includes('grafana-key-0123456'));
});

test.run();
