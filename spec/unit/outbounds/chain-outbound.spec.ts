import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Secret } from '../../../actors/config/secret.js';
import { ChainOutbound } from '../../../actors/outbounds/chain-outbound.js';
import type { Hop } from '../../../actors/outbounds/hop.js';
import { settlesBeforeFar } from '../../support/far-bound.js';
import { fakeHttp } from './fake-http.js';
import { fakeSocks } from './fake-socks.js';
import { failureOf } from './failure-of.js';
import { greetingOrigin, readBytes } from './loopback.js';

const GREETING = 'hello from origin\n';
const OPTS = { connectTimeoutMs: 2000 };
const OK_HEAD = 'HTTP/1.1 200 OK\r\n\r\n';

function hop(tag: string, protocol: Hop['protocol'], port: number): Hop {
  return { tag, protocol, server: '127.0.0.1', port };
}

function connectLine(port: number): string {
  return `CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`;
}

test('socks then http: each hop is asked for the next, the last for the target', async () => {
  const origin = await greetingOrigin(GREETING);
  const a = await fakeSocks();
  const b = await fakeHttp();
  const out = new ChainOutbound('a-then-b', [hop('a', 'socks', a.port), hop('b', 'http', b.port)]);
  const dial = await out.dial({ host: '127.0.0.1', port: origin.port }, OPTS);
  assert.is(await readBytes(dial.socket, GREETING.length), GREETING);
  assert.equal(a.requests, [`127.0.0.1:${b.port}`]);
  assert.equal(b.heads, [connectLine(origin.port)]);
  assert.equal(dial.relay_chain, [
    { tag: 'a', protocol: 'socks', server: '127.0.0.1', port: a.port },
    { tag: 'b', protocol: 'http', server: '127.0.0.1', port: b.port },
  ]);
  assert.equal(dial.handshake, { rx: 12 + OK_HEAD.length, tx: 13 + connectLine(origin.port).length });
  assert.is(dial.resolved_ip, '127.0.0.1');
  assert.is([out.protocol, out.kind, out.chained].join(), 'chain,relay,true');
  dial.socket.destroy();
  await Promise.all([a.close(), b.close(), origin.close()]);
});

test('http then socks with auth, and early tunnel bytes kept out of the handshake', async () => {
  const origin = await greetingOrigin(GREETING);
  const a = await fakeHttp();
  const b = await fakeSocks({ user: { username: 'u', password: 'p' }, afterReply: 'EARLY:' });
  const second: Hop = { ...hop('b', 'socks', b.port), username: 'u', password: new Secret('p') };
  const dial = await new ChainOutbound('c', [hop('a', 'http', a.port), second]).dial({ host: '127.0.0.1', port: origin.port }, OPTS);
  assert.is(await readBytes(dial.socket, 6 + GREETING.length), `EARLY:${GREETING}`);
  assert.equal(a.heads, [connectLine(b.port)]);
  assert.equal(b.requests, [`127.0.0.1:${origin.port}`]);
  // socks with auth: greeting 4 + auth (3 + 1 + 1) + request 10; 2 + 2 + 10.
  assert.equal(dial.handshake, { rx: OK_HEAD.length + 14, tx: connectLine(b.port).length + 19 });
  dial.socket.destroy();
  await Promise.all([a.close(), b.close(), origin.close()]);
});

test('a SOCKS5 hop that cannot reach the next hop blames the next hop: HOP_REFUSED', async () => {
  const a = await fakeSocks({ reply: 5 });
  const hops = [hop('a', 'socks', a.port), { ...hop('b', 'http', 3128), server: '127.0.0.9' }];
  const failure = await failureOf(new ChainOutbound('c', hops).dial({ host: '127.0.0.1', port: 80 }, OPTS));
  assert.is(failure.code, 'HOP_REFUSED');
  assert.is(failure.stage, 'hop:b');
  assert.equal(failure.remote, { host: '127.0.0.9', port: 3128 });
  assert.is(failure.message, 'hop "b" (http 127.0.0.9:3128) refused the connection from hop "a"');
  await a.close();
});

test('an HTTP hop that answers 502 for the next hop is HOP_REJECTED on itself', async () => {
  const a = await fakeHttp({ answer: 'HTTP/1.1 502 Bad Gateway\r\n\r\n' });
  const hops = [hop('a', 'http', a.port), hop('b', 'socks', 1080)];
  const failure = await failureOf(new ChainOutbound('c', hops).dial({ host: '127.0.0.1', port: 80 }, OPTS));
  assert.is(failure.code, 'HOP_REJECTED');
  assert.is(failure.stage, 'hop:a');
  assert.is(failure.message, `hop "a" (http 127.0.0.1:${a.port}) answered CONNECT 127.0.0.1:1080 with 502 Bad Gateway`);
  await a.close();
});

test('a second hop that refuses the credentials is HOP_AUTH_FAILED on that hop', async () => {
  const a = await fakeSocks();
  const b = await fakeSocks({ user: { username: 'u', password: 'right' } });
  const second: Hop = { ...hop('b', 'socks', b.port), username: 'u', password: new Secret('wrong') };
  const failure = await failureOf(new ChainOutbound('c', [hop('a', 'socks', a.port), second]).dial({ host: '127.0.0.1', port: 80 }, OPTS));
  assert.is(failure.code, 'HOP_AUTH_FAILED');
  assert.is(failure.stage, 'hop:b');
  assert.equal(failure.remote, { host: '127.0.0.1', port: b.port });
  await Promise.all([a.close(), b.close()]);
});

test('the connect timeout bounds the whole chain and names the hop that was late', async () => {
  const a = await fakeSocks();
  const b = await fakeHttp({ silent: true });
  const started = Date.now();
  const dial = new ChainOutbound('c', [hop('a', 'socks', a.port), hop('b', 'http', b.port)]).dial({ host: '127.0.0.1', port: 80 }, { connectTimeoutMs: 200 });
  const failure = await settlesBeforeFar(failureOf(dial), 'the dial through a chain with a silent hop');
  const took = Date.now() - started;
  assert.is(failure.code, 'HOP_TIMEOUT');
  assert.is(failure.stage, 'hop:b');
  assert.ok(took >= 190, `not before the timeout: ${took} ms`);
  await Promise.all([a.close(), b.close()]);
});

test('a chain needs at least one hop', () => {
  assert.throws(() => new ChainOutbound('empty', []), /chain "empty" has no hops/);
});

test.run();
