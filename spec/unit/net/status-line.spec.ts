import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { statusCodeOf } from '../../../actors/net/status-line.js';

test('reads the code of an HTTP/1.1 and an HTTP/1.0 status line', () => {
  assert.is(statusCodeOf('HTTP/1.1 200 Connection Established\r\nVia: hop\r\n\r\n'), 200);
  assert.is(statusCodeOf('HTTP/1.0 407 Proxy Authentication Required\r\n\r\n'), 407);
});

test('a status line may end after its code, and the head may be only that line', () => {
  assert.is(statusCodeOf('HTTP/1.1 204\r\n\r\n'), 204);
  assert.is(statusCodeOf('HTTP/1.1 302 Found'), 302);
  assert.is(statusCodeOf('HTTP/1.0 503 '), 503);
});

test('refuses every other version', () => {
  for (const version of ['HTTP/2', 'HTTP/2.0', 'HTTP/1.2', 'HTTP/0.9', 'HTTP/1', 'HTTP/11', 'http/1.1', 'HTTPS/1.1']) {
    assert.is(statusCodeOf(`${version} 200 OK\r\n\r\n`), null, version);
  }
});

test('refuses a line that is not a status line', () => {
  for (const line of ['HTTP/1.1 20 OK', 'HTTP/1.1 2000 OK', 'HTTP/1.1 200OK', 'HTTP/1.1  200 OK', ' HTTP/1.1 200 OK', 'HTTP/1.1\t200 OK', '', 'SSH-2.0-OpenSSH_9.6']) {
    assert.is(statusCodeOf(`${line}\r\n\r\n`), null, JSON.stringify(line));
  }
});

test('reads only the first line: a status line later in the head does not count', () => {
  assert.is(statusCodeOf('garbage\r\nHTTP/1.1 200 OK\r\n\r\n'), null);
});

test.run();
