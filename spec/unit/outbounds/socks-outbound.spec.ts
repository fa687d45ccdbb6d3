import { test } from 'uvu';
import type { HopConfig } from '../../../actors/outbounds/hop.js';
import * as assert from 'uvu/assert';
import { Secret } from '../../../actors/config/secret.js';
import { SocksOutbound } from '../../../actors/outbounds/socks-outbound.js';
import { freePort } from '../../support/free-port.js';
import { fakeSocks } from './fake-socks.js';
import { failureOf } from './failure-of.js';
import { ByteReader, bridge, greetingOrigin, readBytes, serve } from './loopback.js';

const GREETING = 'hello from origin\n';
const OPTS = { connectTimeoutMs: 2000 };

function socks(port: number, user?: { username: string; password: string }): SocksOutbound {
  const config: Extract<HopConfig, { type: 'socks' }> = { type: 'socks', tag: 'hop-s', server: '127.0.0.1', port };
  if (user) Object.assign(config, { username: user.username, password: new Secret(user.password) });
  return new SocksOutbound(config);
}

test('dials through a SOCKS5 hop: relay chain, handshake bytes and first hop address', async () => {
  const origin = await greetingOrigin(GREETING);
  const hop = await fakeSocks();
  const out = socks(hop.port);
  const dial = await out.dial({ host: '127.0.0.1', port: origin.port }, OPTS);
  assert.is(await readBytes(dial.socket, GREETING.length), GREETING);
  assert.equal(hop.requests, [`127.0.0.1:${origin.port}`]);
  assert.equal(dial.relay_chain, [{ tag: 'hop-s', protocol: 'socks', server: '127.0.0.1', port: hop.port }]);
  // greeting [5,1,0] + request (4 + IPv4 4 + port 2); method choice 2 + reply 10.
  assert.equal(dial.handshake, { rx: 12, tx: 13 });
  assert.is(dial.resolved_ip, '127.0.0.1');
  assert.is(dial.socket.bytesRead - dial.handshake.rx, GREETING.length);
  assert.is([out.protocol, out.kind, out.chained].join(), 'socks,relay,true');
  dial.socket.destroy();
  await hop.close();
  await origin.close();
});

test('sends a host name target to the hop as a domain address', async () => {
  const origin = await greetingOrigin(GREETING);
  const hop = await fakeSocks();
  const dial = await socks(hop.port).dial({ host: 'localhost', port: origin.port }, OPTS);
  assert.equal(hop.requests, [`localhost:${origin.port}`]);
  // request: 4 + length byte + 9 + port 2
  assert.is(dial.handshake.tx, 3 + 16);
  // The hop resolved the name, not the node: the target's address is not known here.
  assert.is(dial.resolved_ip, undefined);
  dial.socket.destroy();
  await hop.close();
  await origin.close();
});

test('keeps tunnel bytes that arrive with the reply for the relay, not the handshake', async () => {
  const origin = await greetingOrigin(GREETING);
  const hop = await fakeSocks({ afterReply: 'EARLY:' });
  const dial = await socks(hop.port).dial({ host: '127.0.0.1', port: origin.port }, OPTS);
  assert.is(await readBytes(dial.socket, 6 + GREETING.length), `EARLY:${GREETING}`);
  assert.is(dial.handshake.rx, 12);
  dial.socket.destroy();
  await hop.close();
  await origin.close();
});

test('authenticates with username and password', async () => {
  const origin = await greetingOrigin(GREETING);
  const hop = await fakeSocks({ user: { username: 'alice', password: 'pw-secret' } });
  const dial = await socks(hop.port, { username: 'alice', password: 'pw-secret' }).dial({ host: '127.0.0.1', port: origin.port }, OPTS);
  assert.is(await readBytes(dial.socket, GREETING.length), GREETING);
  assert.equal(hop.logins, ['alice:pw-secret']);
  // greeting [5,2,0,2] + auth (1 + 1 + 5 + 1 + 9) + request 10; 2 + 2 + 10.
  assert.equal(dial.handshake, { rx: 14, tx: 31 });
  dial.socket.destroy();
  await hop.close();
  await origin.close();
});

test('a wrong password is HOP_AUTH_FAILED naming the hop, without the password', async () => {
  const hop = await fakeSocks({ user: { username: 'alice', password: 'right' } });
  const failure = await failureOf(socks(hop.port, { username: 'alice', password: 'wrong-pw' }).dial({ host: '127.0.0.1', port: 9 }, OPTS));
  assert.is(failure.code, 'HOP_AUTH_FAILED');
  assert.is(failure.stage, 'hop:hop-s');
  assert.equal(failure.remote, { host: '127.0.0.1', port: hop.port });
  assert.is(failure.message, `hop "hop-s" (socks 127.0.0.1:${hop.port}) rejected the username/password of user "alice"`);
  assert.not.match(JSON.stringify(failure.toFailure()) + String(failure.cause), 'wrong-pw');
  await hop.close();
});

test('a hop that requires credentials when none are configured is HOP_AUTH_FAILED', async () => {
  const hop = await fakeSocks({ user: { username: 'alice', password: 'right' } });
  const failure = await failureOf(socks(hop.port).dial({ host: '127.0.0.1', port: 9 }, OPTS));
  assert.is(failure.code, 'HOP_AUTH_FAILED');
  assert.match(failure.message, 'requires authentication and no username/password is configured');
  await hop.close();
});

test('a failure reply to the CONNECT is HOP_REJECTED with the reason', async () => {
  const hop = await fakeSocks({ reply: 5 });
  const failure = await failureOf(socks(hop.port).dial({ host: '127.0.0.1', port: 4242 }, OPTS));
  assert.is(failure.code, 'HOP_REJECTED');
  assert.is(failure.stage, 'hop:hop-s');
  assert.is(failure.message, `hop "hop-s" (socks 127.0.0.1:${hop.port}) answered CONNECT 127.0.0.1:4242 with: connection refused`);
  await hop.close();
});

test('an answer that is not SOCKS5 is HOP_PROTOCOL_ERROR', async () => {
  const hop = await fakeSocks({ greetingAnswer: Buffer.from('HTTP/1.1 400 Bad Request\r\n\r\n') });
  const failure = await failureOf(socks(hop.port).dial({ host: '127.0.0.1', port: 9 }, OPTS));
  assert.is(failure.code, 'HOP_PROTOCOL_ERROR');
  assert.match(failure.message, 'answered the greeting with something that is not SOCKS5 (version 72)');
  await hop.close();
});

test('a hop that closes mid-handshake is HOP_CLOSED', async () => {
  const hop = await fakeSocks({ greetingAnswer: Buffer.alloc(0) });
  const failure = await failureOf(socks(hop.port).dial({ host: '127.0.0.1', port: 9 }, OPTS));
  assert.is(failure.code, 'HOP_CLOSED');
  assert.match(failure.message, 'closed the connection during the SOCKS5 handshake');
  await hop.close();
});

test('takes a hop whose answers come one byte at a time, and a reply with a domain bound address', async () => {
  const origin = await greetingOrigin(GREETING);
  const trickle = async (socket: import('node:net').Socket, bytes: number[]): Promise<void> => {
    for (const b of bytes) {
      socket.write(Buffer.from([b]));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  const hop = await serve((client) => {
    const reader = new ByteReader(client);
    void (async () => {
      await reader.take(3);
      await trickle(client, [5, 0]);
      await reader.take(10);
      const name = Buffer.from('relay.test');
      await trickle(client, [5, 0, 0, 3, name.length, ...name, 0x12, 0x34]);
      bridge(reader, client, { host: '127.0.0.1', port: origin.port }, Buffer.alloc(0));
    })();
  });
  const dial = await socks(hop.port).dial({ host: '127.0.0.1', port: origin.port }, OPTS);
  assert.is(await readBytes(dial.socket, GREETING.length), GREETING);
  assert.equal(dial.handshake, { rx: 2 + 7 + 10, tx: 13 });
  dial.socket.destroy();
  await hop.close();
  await origin.close();
});

test('a method the node did not offer is HOP_PROTOCOL_ERROR', async () => {
  const hop = await fakeSocks({ chooseMethod: 1 });
  const failure = await failureOf(socks(hop.port).dial({ host: '127.0.0.1', port: 9 }, OPTS));
  assert.is(failure.code, 'HOP_PROTOCOL_ERROR');
  assert.match(failure.message, 'chose authentication method 1, which was not offered');
  await hop.close();
});

test('credentials over 255 bytes (a hop built in code) are HOP_AUTH_FAILED, the node still up, and nothing is sent', async () => {
  const hop = await fakeSocks({ chooseMethod: 2 });
  const failure = await failureOf(socks(hop.port, { username: 'alice', password: 'x'.repeat(256) }).dial({ host: '127.0.0.1', port: 9 }, OPTS));
  assert.is(failure.code, 'HOP_AUTH_FAILED');
  assert.match(failure.message, 'over 255 bytes');
  assert.equal(hop.logins, []);
  await hop.close();
});

test('a closed hop port is HOP_REFUSED with the hop as remote', async () => {
  const port = await freePort();
  const failure = await failureOf(socks(port).dial({ host: '127.0.0.1', port: 9 }, OPTS));
  assert.is(failure.code, 'HOP_REFUSED');
  assert.is(failure.stage, 'hop:hop-s');
  assert.equal(failure.remote, { host: '127.0.0.1', port });
  assert.is(failure.message, `hop "hop-s" (socks 127.0.0.1:${port}) refused the connection`);
});

test('never asks a SOCKS5 hop for a target it cannot write whole, or the unspecified address: TARGET_INVALID, no connection', async () => {
  const hop = await fakeSocks();
  for (const host of ['b\u00fccher.example', 'a\r\nb', 'fe80::1%eth0', '', '0.0.0.0', '::']) {
    const failure = await failureOf(socks(hop.port).dial({ host, port: 80 }, OPTS));
    assert.equal([failure.code, failure.stage], ['TARGET_INVALID', 'connect'], JSON.stringify(host));
  }
  assert.equal(hop.requests, []);
  assert.is(hop.accepted, 0);
  await hop.close();
});

test.run();
