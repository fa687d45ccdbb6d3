import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { shownUrl } from '../../../actors/net/shown-url.js';

test('hides every query value and keeps the names, scheme, host, port and path', () => {
  assert.is(shownUrl('https://hooks.example:8443/in/billing?token=s3cr3t&sig=abc&v=2'), 'https://hooks.example:8443/in/billing?token=REDACTED&sig=REDACTED&v=REDACTED');
});

test('hides the user name and the password of userinfo', () => {
  assert.is(shownUrl('https://user:pass@hooks.example/in'), 'https://REDACTED:REDACTED@hooks.example/in');
  assert.is(shownUrl('https://sk_live_key@hooks.example/in'), 'https://REDACTED@hooks.example/in', 'a key given as the user name alone');
});

test('hides a query part without a name whole, and the fragment', () => {
  assert.is(shownUrl('http://h.example/in?bare-key&a=1&&b='), 'http://h.example/in?REDACTED&a=REDACTED&&b=REDACTED');
  assert.is(shownUrl('http://h.example/in#frag-secret'), 'http://h.example/in#REDACTED');
});

test('a URL without secrets is shown as it is', () => {
  assert.is(shownUrl('http://127.0.0.1:8080/hook'), 'http://127.0.0.1:8080/hook');
  assert.is(shownUrl('http://h.example/in?'), 'http://h.example/in?');
});

test('a string that is no URL is hidden whole and never throws', () => {
  for (const bad of ['not a url', '', 'token=s3cr3t', 'http://[::1', 'http://h.example:99999/?token=s3cr3t']) {
    assert.is(shownUrl(bad), 'REDACTED', bad);
  }
});

test.run();
