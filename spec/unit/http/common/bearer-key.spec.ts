import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Secret } from '../../../../actors/config/secret.js';
import { bearerToken, keyCheck, keyRefusal } from '../../../../http/common/bearer-key.js';

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

test('keyCheck accepts exactly the configured key', () => {
  const check = keyCheck(new Secret('s3cret-key'));
  assert.is(check('s3cret-key'), true);
  assert.is(check('s3cret-keY'), false);
  assert.is(check('s3cret-key '), false);
  assert.is(check(''), false);
  assert.is(check(undefined), false);
});

test('keyCheck compares keys of any length without throwing', () => {
  const check = keyCheck(new Secret('short'));
  assert.is(check('x'.repeat(10_000)), false);
  assert.is(check('é'), false);
});

test('keyRefusal tells a missing key from a wrong one and never echoes the key', () => {
  const check = keyCheck(new Secret('right'));
  assert.equal(keyRefusal(check, undefined), {
    detail: 'send the API key as "Authorization: Bearer <key>"',
    challenge: 'Bearer realm="weir"',
  });
  const wrong = keyRefusal(check, 'wrong-key-value');
  assert.equal(wrong, { detail: 'the API key does not match', challenge: 'Bearer realm="weir", error="invalid_token"' });
  assert.is(keyRefusal(check, 'right'), null);
});

test.run();
