import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Secret } from '../../../../actors/config/secret.js';
import { bearerToken, controlKeys, keyRing } from '../../../../http/common/bearer-key.js';

test('bearerToken reads the token of a Bearer header, the scheme in any case', () => {
  assert.is(bearerToken('Bearer abc.DEF-123'), 'abc.DEF-123');
  assert.is(bearerToken('bearer abc'), 'abc');
  assert.is(bearerToken('BEARER \tabc '), 'abc');
});

test('bearerToken finds no token in a missing, empty, other-scheme or two-part header', () => {
  assert.is(bearerToken(undefined), undefined);
  assert.is(bearerToken(''), undefined);
  assert.is(bearerToken('Bearer'), undefined);
  assert.is(bearerToken('Bearer '), undefined);
  assert.is(bearerToken('Basic YWxpY2U6cHc='), undefined);
  assert.is(bearerToken('Bearer a b'), undefined);
  assert.is(bearerToken('Bearerabc'), undefined);
});

const ring = keyRing([
  { id: 'ops-console', key: new Secret('s3cret-key'), scope: 'operate' },
  { id: 'grafana', key: new Secret('read-only-key'), scope: 'read' },
]);

test('keyRing names the caller of exactly a configured key, with its scope', () => {
  assert.equal(ring('s3cret-key'), { key_id: 'ops-console', scope: 'operate' });
  assert.equal(ring('read-only-key'), { key_id: 'grafana', scope: 'read' });
  assert.is(ring('s3cret-keY'), null);
  assert.is(ring('s3cret-key '), null);
  assert.is(ring(''), null);
  assert.is(ring(undefined), null);
});

test('keyRing compares keys of any length without throwing', () => {
  assert.is(ring('x'.repeat(10_000)), null);
  assert.is(ring('é'), null);
});

test('controlKeys makes control.api_key the admin key "api_key", before the scoped keys', () => {
  const keys = controlKeys({ api_key: new Secret('admin-key-value'), keys: [{ id: 'grafana', key: new Secret('read-only-key'), scope: 'read' }] });
  assert.equal(keys.map((k) => [k.id, k.scope]), [['api_key', 'admin'], ['grafana', 'read']]);
  assert.equal(keyRing(keys)('admin-key-value'), { key_id: 'api_key', scope: 'admin' });
});

test.run();
