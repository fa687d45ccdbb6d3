import { request } from 'node:http';
import { test } from 'uvu';
import type { HopConfig } from '../../../actors/outbounds/hop.js';
import * as assert from 'uvu/assert';
import { Secret } from '../../../actors/config/secret.js';
import { HttpOutbound } from '../../../actors/outbounds/http-outbound.js';
import { settlesBeforeFar } from '../../support/far-bound.js';
import { fakeHttp } from './fake-http.js';
import { failureOf } from './failure-of.js';
import { greetingOrigin, readBytes, serve } from './loopback.js';

const GREETING = 'hello from origin\n';
const OPTS = { connectTimeoutMs: 2000 };

function http(port: number, user?: { username: string; password: string }): HttpOutbound {
  const config: Extract<HopConfig, { type: 'http' }> = { type: 'http', tag: 'hop-h', server: '127.0.0.1', port };
  if (user) Object.assign(config, { username: user.username, password: new Secret(user.password) });
  return new HttpOutbound(config);
}

test('dials through an HTTP CONNECT hop: request, relay chain and handshake bytes', async () => {
  const origin = await greetingOrigin(GREETING);
  const hop = await fakeHttp({ answer: 'HTTP/1.1 200 Connection established\r\n\r\n' });
  const out = http(hop.port);
  const dial = await out.dial({ host: '127.0.0.1', port: origin.port }, OPTS);
  assert.is(await readBytes(dial.socket, GREETING.length), GREETING);
  const sent = `CONNECT 127.0.0.1:${origin.port} HTTP/1.1\r\nHost: 127.0.0.1:${origin.port}\r\n\r\n`;
  assert.equal(hop.heads, [sent]);
  assert.equal(dial.relay_chain, [{ tag: 'hop-h', protocol: 'http', server: '127.0.0.1', port: hop.port }]);
  assert.equal(dial.handshake, { rx: 'HTTP/1.1 200 Connection established\r\n\r\n'.length, tx: sent.length });
  assert.is(dial.resolved_ip, '127.0.0.1');
  assert.is([out.protocol, out.kind, out.chained].join(), 'http,relay,true');
  dial.socket.destroy();
  await hop.close();
  await origin.close();
});

test('sends Basic Proxy-Authorization when credentials are configured', async () => {
  const origin = await greetingOrigin(GREETING);
  const hop = await fakeHttp();
  const dial = await http(hop.port, { username: 'bob', password: 's3cret' }).dial({ host: '127.0.0.1', port: origin.port }, OPTS);
  assert.match(hop.heads[0]!, `\r\nProxy-Authorization: Basic ${Buffer.from('bob:s3cret').toString('base64')}\r\n\r\n`);
  dial.socket.destroy();
  await hop.close();
  await origin.close();
});

test('puts bytes after the response head back for the relay, outside the handshake', async () => {
  const origin = await greetingOrigin(GREETING);
  const hop = await fakeHttp({ answer: 'HTTP/1.0 200 OK\r\nProxy-agent: fake\r\n\r\n', afterHead: 'EARLY:' });
  const dial = await http(hop.port).dial({ host: '127.0.0.1', port: origin.port }, OPTS);
  assert.is(await readBytes(dial.socket, 6 + GREETING.length), `EARLY:${GREETING}`);
  assert.is(dial.handshake.rx, 'HTTP/1.0 200 OK\r\nProxy-agent: fake\r\n\r\n'.length);
  dial.socket.destroy();
  await hop.close();
  await origin.close();
});

test('hands over a socket that http.request can use as it is', async () => {
  const origin = await serve((s) => s.end('HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n'));
  const hop = await fakeHttp();
  const dial = await http(hop.port).dial({ host: '127.0.0.1', port: origin.port }, OPTS);
  const answered = new Promise<number | undefined>((resolve, reject) => {
    const req = request({ createConnection: () => dial.socket, path: '/', headers: { host: 'origin' } }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', reject);
    req.end();
  });
  // A socket left paused would stall the request: fail instead of hanging.
  const status = await settlesBeforeFar(answered, 'http.request on the handed-over socket');
  assert.is(status, 204);
  dial.socket.destroy();
  await hop.close();
  await origin.close();
});

/** A hop that records every byte sent to it; `ended()` gives them once the dialer ended its connection. */
test('never writes a CONNECT whose authority has bytes a host or port cannot: TARGET_INVALID, the hop gets nothing', async () => {
  const injected = 'victim.test:80 HTTP/1.1\r\nX-Injected: yes\r\n\r\nGET http://internal.test/admin HTTP/1.1\r\nHost: internal.test\r\nX-Pad: a';
  for (const host of [injected, 'a b', 'user@a', 'fe80::1%eth0\r\nX: y', 'fe80::1%eth0', 'b\u00fccher.example', '']) {
    const hop = await serve(() => {});
    const failure = await failureOf(http(hop.port, { username: 'u', password: 'p' }).dial({ host, port: 80 }, OPTS));
    assert.is(failure.code, 'TARGET_INVALID', JSON.stringify(host));
    assert.is(failure.stage, 'connect');
    assert.is(hop.accepted, 0, `the hop was not even connected for ${JSON.stringify(host)}`);
    await hop.close();
  }
});

test('407 is HOP_AUTH_FAILED naming the user, never the password', async () => {
  const hop = await fakeHttp({ answer: 'HTTP/1.1 407 Proxy Authentication Required\r\n\r\n' });
  const failure = await failureOf(http(hop.port, { username: 'bob', password: 'hunter2-pw' }).dial({ host: '127.0.0.1', port: 9 }, OPTS));
  assert.is(failure.code, 'HOP_AUTH_FAILED');
  assert.is(failure.stage, 'hop:hop-h');
  assert.equal(failure.remote, { host: '127.0.0.1', port: hop.port });
  assert.is(
    failure.message,
    `hop "hop-h" (http 127.0.0.1:${hop.port}) answered CONNECT with 407 Proxy Authentication Required: the credentials of user "bob" were refused`,
  );
  assert.not.match(JSON.stringify(failure.toFailure()), 'hunter2-pw');
  await hop.close();
});

test('a non-2xx answer is HOP_REJECTED with the status', async () => {
  const hop = await fakeHttp({ answer: 'HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n' });
  const failure = await failureOf(http(hop.port).dial({ host: 'origin.test', port: 8443 }, OPTS));
  assert.is(failure.code, 'HOP_REJECTED');
  assert.is(failure.message, `hop "hop-h" (http 127.0.0.1:${hop.port}) answered CONNECT origin.test:8443 with 403 Forbidden`);
  await hop.close();
});

test('a malformed status line is HOP_PROTOCOL_ERROR', async () => {
  const hop = await fakeHttp({ answer: 'SSH-2.0-OpenSSH\r\n\r\n' });
  const failure = await failureOf(http(hop.port).dial({ host: '127.0.0.1', port: 9 }, OPTS));
  assert.is(failure.code, 'HOP_PROTOCOL_ERROR');
  assert.match(failure.message, 'answered CONNECT with a malformed status line');
  await hop.close();
});

test('a response head over 16 KiB is HOP_PROTOCOL_ERROR', async () => {
  const origin = await greetingOrigin(GREETING);
  const hop = await fakeHttp({ answer: `HTTP/1.1 200 OK\r\nX-Pad: ${'x'.repeat(17 * 1024)}\r\n\r\n` });
  const failure = await failureOf(http(hop.port).dial({ host: '127.0.0.1', port: origin.port }, OPTS));
  assert.is(failure.code, 'HOP_PROTOCOL_ERROR');
  assert.match(failure.message, 'sent a CONNECT response head over 16384 bytes');
  await hop.close();
  await origin.close();
});

test('a hop that hangs up before answering is HOP_CLOSED', async () => {
  const hop = await fakeHttp({ hangUp: true });
  const failure = await failureOf(http(hop.port).dial({ host: '127.0.0.1', port: 9 }, OPTS));
  assert.is(failure.code, 'HOP_CLOSED');
  assert.match(failure.message, 'closed the connection before answering CONNECT');
  await hop.close();
});

test('a hop that never answers is HOP_TIMEOUT once the connect timeout passes', async () => {
  const hop = await fakeHttp({ silent: true });
  const started = Date.now();
  const dial = http(hop.port).dial({ host: '127.0.0.1', port: 9 }, { connectTimeoutMs: 150 });
  const failure = await settlesBeforeFar(failureOf(dial), 'the dial through a silent hop');
  const took = Date.now() - started;
  assert.is(failure.code, 'HOP_TIMEOUT');
  assert.is(failure.stage, 'hop:hop-h');
  assert.ok(took >= 140, `not before the timeout: ${took} ms`);
  await hop.close();
});

test.run();
