import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { probeTarget, ProbeUrlError } from '../../../actors/policies/probe-target.js';

test('an http url gives host, default port 80, Host header, path with query, and the url shown', () => {
  assert.equal(probeTarget('http://cp.example/generate_204?x=1'), {
    endpoint: { host: 'cp.example', port: 80 },
    tls: false,
    hostHeader: 'cp.example',
    requestPath: '/generate_204?x=1',
    publicUrl: 'http://cp.example/generate_204?x=REDACTED',
  });
});

test('a secret in the query is asked for in full and shown as REDACTED, the fragment too', () => {
  const t = probeTarget('https://probe.example:8443/ok?token=s3cr3t&v=2#frag-secret');
  assert.is(t.requestPath, '/ok?token=s3cr3t&v=2');
  assert.is(t.publicUrl, 'https://probe.example:8443/ok?token=REDACTED&v=REDACTED#REDACTED');
});

test('an https url defaults to port 443 and asks for TLS', () => {
  const t = probeTarget('https://cp.example');
  assert.equal(t.endpoint, { host: 'cp.example', port: 443 });
  assert.is(t.tls, true);
  assert.is(t.requestPath, '/');
});

test('an IPv6 literal is dialled bare and sent bracketed with its port in Host', () => {
  const t = probeTarget('http://[::1]:8080/p');
  assert.equal(t.endpoint, { host: '::1', port: 8080 });
  assert.is(t.hostHeader, '[::1]:8080');
});

test('user and password never reach the published url', () => {
  assert.is(probeTarget('http://u:secret@cp.example:81/x').publicUrl, 'http://cp.example:81/x');
});

test('refuses a scheme other than http and https with a code', () => {
  try {
    probeTarget('ftp://cp.example/');
    assert.unreachable('ftp was accepted');
  } catch (err) {
    assert.instance(err, ProbeUrlError);
    assert.is((err as ProbeUrlError).code, 'PROBE_URL_UNSUPPORTED');
  }
});

test.run();
