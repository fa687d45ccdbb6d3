import { setImmediate as tick } from 'node:timers/promises';
import type { Duplex } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HandshakeError } from '../../../actors/socks5/handshake-error.js';
import type { InboundAccount } from '../../../actors/contracts/credentials.js';
import { SOCKS5_REPLY, acceptSocks5, writeSocks5Reply } from '../../../actors/socks5/socks5-handshake.js';
import { duplexPair } from '../../support/duplex-pair.js';
import { rejectionOf } from '../../support/rejection.js';

const NOAUTH = { scheme: 'noauth', principal_key: null, attributes: {} };
const ALICE: InboundAccount = { username: 'alice', password: 'hunter2-Secret' };
const NOAUTH_GREETING = [5, 1, 0];
const USERPASS_GREETING = [5, 2, 0, 2];
const CONNECT_IPV4 = [5, 1, 0, 1, 127, 0, 0, 1, 0x1f, 0x90];

function userPass(username: string, password: string): number[] {
  return [1, username.length, ...Buffer.from(username), password.length, ...Buffer.from(password)];
}

/** A client end that records everything the server writes. */
function connect(): { client: Duplex; server: Duplex; received: () => Promise<number[]> } {
  const [client, server] = duplexPair();
  const chunks: Buffer[] = [];
  client.on('data', (chunk: Buffer) => chunks.push(chunk));
  const received = async (): Promise<number[]> => {
    await tick();
    return [...Buffer.concat(chunks)];
  };
  return { client, server, received };
}

async function rejection(pending: Promise<unknown>): Promise<HandshakeError> {
  const error = await rejectionOf(pending);
  assert.instance(error, HandshakeError);
  return error as HandshakeError;
}

test('accepts a no-auth CONNECT to an IPv4 target', async () => {
  const { client, server, received } = connect();
  client.write(Buffer.from([...NOAUTH_GREETING, ...CONNECT_IPV4]));
  const request = await acceptSocks5(server, { users: null, timeoutMs: 1000 });
  assert.equal(request, {
    command: 'connect',
    target: { host: '127.0.0.1', port: 8080 },
    auth: NOAUTH,
    rxBytes: 13,
    txBytes: 2,
  });
  assert.equal(await received(), [5, 0]);
});

test('gives an IPv6 target in canonical compressed form', async () => {
  const { client, server } = connect();
  const addr = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
  client.write(Buffer.from([...NOAUTH_GREETING, 5, 1, 0, 4, ...addr, 0x01, 0xbb]));
  const request = await acceptSocks5(server, { users: [], timeoutMs: 1000 });
  assert.equal(request.target, { host: '2001:db8::1', port: 443 });
  assert.is(request.rxBytes, 3 + 22);
});

test('gives a domain target as the client sent it', async () => {
  const { client, server } = connect();
  client.write(Buffer.from([...NOAUTH_GREETING, 5, 1, 0, 3, 11, ...Buffer.from('Example.COM'), 0, 80]));
  const request = await acceptSocks5(server, { users: null, timeoutMs: 1000 });
  assert.equal(request.target, { host: 'Example.COM', port: 80 });
  assert.is(request.rxBytes, 3 + 18);
});

test('parses a UDP ASSOCIATE request', async () => {
  const { client, server } = connect();
  client.write(Buffer.from([...NOAUTH_GREETING, 5, 3, 0, 1, 0, 0, 0, 0, 0, 0]));
  const request = await acceptSocks5(server, { users: null, timeoutMs: 1000 });
  assert.is(request.command, 'udp_associate');
  assert.equal(request.target, { host: '0.0.0.0', port: 0 });
});

test('authenticates a user and keys the principal on the username', async () => {
  const { client, server, received } = connect();
  client.write(Buffer.from([...USERPASS_GREETING, ...userPass('alice', ALICE.password), ...CONNECT_IPV4]));
  const request = await acceptSocks5(server, { users: [{ username: 'bob', password: 'x' }, ALICE], timeoutMs: 1000 });
  assert.equal(request.auth, { scheme: 'socks5', principal_key: 'alice', attributes: { username: 'alice' } });
  assert.is(request.rxBytes, 4 + 3 + 5 + 14 + 10);
  assert.is(request.txBytes, 4);
  assert.equal(await received(), [5, 2, 1, 0]);
});

test('keys the principal on the configured principal when there is one', async () => {
  const { client, server } = connect();
  client.write(Buffer.from([...USERPASS_GREETING, ...userPass('alice', ALICE.password), ...CONNECT_IPV4]));
  const request = await acceptSocks5(server, { users: [{ ...ALICE, principal: 'customer-42' }], timeoutMs: 1000 });
  assert.equal(request.auth, { scheme: 'socks5', principal_key: 'customer-42', attributes: { username: 'alice' } });
});

test('answers a wrong password with status 1 and keeps it out of the error', async () => {
  const { client, server, received } = connect();
  const wrong = 'not-the-Password-77';
  client.write(Buffer.from([...USERPASS_GREETING, ...userPass('alice', wrong), ...CONNECT_IPV4]));
  const error = await rejection(acceptSocks5(server, { users: [ALICE], timeoutMs: 1000 }));
  assert.is(error.code, 'SOCKS_AUTH_FAILED');
  assert.equal(await received(), [5, 2, 1, 1]);
  for (const text of [error.message, String(error.stack), JSON.stringify(error)]) {
    assert.not.ok(text.includes(wrong), 'given password leaked');
    assert.not.ok(text.includes(ALICE.password), 'configured password leaked');
  }
});

test('answers an unknown user with status 1', async () => {
  const { client, server, received } = connect();
  client.write(Buffer.from([...USERPASS_GREETING, ...userPass('mallory', ALICE.password)]));
  const error = await rejection(acceptSocks5(server, { users: [ALICE], timeoutMs: 1000 }));
  assert.is(error.code, 'SOCKS_AUTH_FAILED');
  assert.equal(await received(), [5, 2, 1, 1]);
});

test('answers 0xFF when the client does not offer username/password and users are configured', async () => {
  const { client, server, received } = connect();
  client.write(Buffer.from(NOAUTH_GREETING));
  const error = await rejection(acceptSocks5(server, { users: [ALICE], timeoutMs: 1000 }));
  assert.is(error.code, 'SOCKS_NO_ACCEPTABLE_METHOD');
  assert.equal(await received(), [5, 0xff]);
});

test('answers 0xFF when the client offers only username/password and no users are configured', async () => {
  const { client, server, received } = connect();
  client.write(Buffer.from([5, 1, 2]));
  const error = await rejection(acceptSocks5(server, { users: null, timeoutMs: 1000 }));
  assert.is(error.code, 'SOCKS_NO_ACCEPTABLE_METHOD');
  assert.equal(await received(), [5, 0xff]);
});

test('answers BIND with reply 7', async () => {
  const { client, server, received } = connect();
  client.write(Buffer.from([...NOAUTH_GREETING, 5, 2, 0, 1, 127, 0, 0, 1, 0, 80]));
  const error = await rejection(acceptSocks5(server, { users: null, timeoutMs: 1000 }));
  assert.is(error.code, 'SOCKS_BAD_COMMAND');
  assert.equal(await received(), [5, 0, 5, 7, 0, 1, 0, 0, 0, 0, 0, 0]);
});

test('answers an unknown address type with reply 8', async () => {
  const { client, server, received } = connect();
  client.write(Buffer.from([...NOAUTH_GREETING, 5, 1, 0, 9, 127, 0, 0, 1, 0, 80]));
  const error = await rejection(acceptSocks5(server, { users: null, timeoutMs: 1000 }));
  assert.is(error.code, 'SOCKS_BAD_ADDRESS_TYPE');
  assert.equal(await received(), [5, 0, 5, 8, 0, 1, 0, 0, 0, 0, 0, 0]);
});

test('answers an empty domain with reply 1 instead of dialing it', async () => {
  const { client, server, received } = connect();
  client.write(Buffer.from([...NOAUTH_GREETING, 5, 1, 0, 3, 0, 0, 80]));
  const error = await rejection(acceptSocks5(server, { users: null, timeoutMs: 1000 }));
  assert.is(error.code, 'SOCKS_BAD_ADDRESS');
  assert.equal(await received(), [5, 0, 5, 1, 0, 1, 0, 0, 0, 0, 0, 0]);
});

/** The request of a no-auth CONNECT to the domain `name` (latin1: one byte per character), port 80. */
function connectDomain(name: string): Buffer {
  const bytes = Buffer.from(name, 'latin1');
  return Buffer.from([...NOAUTH_GREETING, 5, 1, 0, 3, bytes.length, ...bytes, 0, 80]);
}

test('takes a domain only when it is a plausible host name, else answers reply 1 with no request', async () => {
  const label = 'a'.repeat(63);
  const longest = `${label}.${label}.${label}.${'b'.repeat(61)}`;
  for (const name of ['a_b-C9.example', 'xn--bcher-kva.example', 'example.com.', label, longest, `${longest}.`]) {
    const { client, server } = connect();
    client.write(connectDomain(name));
    const request = await acceptSocks5(server, { users: null, timeoutMs: 1000 });
    assert.equal(request.target, { host: name, port: 80 }, name);
  }
  const refused = [
    'victim.test:80 HTTP/1.1\r\nX-Injected: yes\r\n\r\nGET http://internal.test/admin HTTP/1.1\r\nHost: internal.test\r\nX-Pad: a',
    'a\nb',
    'a b',
    'a\0b',
    'a:80',
    'a/b',
    'user@a',
    'a%2e',
    'b\u00fccher.example',
    'a..b',
    '.a',
    '..',
    `${label}a.example`,
    `${longest}x`,
  ];
  for (const name of refused) {
    const { client, server, received } = connect();
    client.write(connectDomain(name));
    const error = await rejection(acceptSocks5(server, { users: null, timeoutMs: 1000 }));
    assert.is(error.code, 'SOCKS_BAD_ADDRESS', JSON.stringify(name));
    assert.equal(await received(), [5, 0, 5, 1, 0, 1, 0, 0, 0, 0, 0, 0], JSON.stringify(name));
  }
});

test('gives a domain in a numeric IPv4 form as the dotted quad it names', async () => {
  for (const name of ['127.1', '2130706433', '0x7f000001', '0177.0.0.1']) {
    const { client, server } = connect();
    client.write(connectDomain(name));
    const request = await acceptSocks5(server, { users: null, timeoutMs: 1000 });
    assert.equal(request.target, { host: '127.0.0.1', port: 80 }, name);
  }
});

test('rejects a greeting of another version without answering', async () => {
  const { client, server, received } = connect();
  client.write(Buffer.from([4, 1, 0, 80, 127, 0, 0, 1, 0]));
  const error = await rejection(acceptSocks5(server, { users: null, timeoutMs: 1000 }));
  assert.is(error.code, 'SOCKS_BAD_VERSION');
  assert.equal(await received(), []);
});

test('rejects an HTTP request sent to the SOCKS port', async () => {
  const { client, server } = connect();
  client.write('GET / HTTP/1.1\r\n\r\n');
  const error = await rejection(acceptSocks5(server, { users: null, timeoutMs: 1000 }));
  assert.is(error.code, 'SOCKS_BAD_VERSION');
});

test('rejects a request of another version after the greeting', async () => {
  const { client, server } = connect();
  client.write(Buffer.from([...NOAUTH_GREETING, 4, 1, 0, 1, 127, 0, 0, 1, 0, 80]));
  const error = await rejection(acceptSocks5(server, { users: null, timeoutMs: 1000 }));
  assert.is(error.code, 'SOCKS_BAD_VERSION');
});

test('rejects a truncated greeting when the client ends', async () => {
  const { client, server } = connect();
  client.end(Buffer.from([5, 2, 0]));
  const error = await rejection(acceptSocks5(server, { users: null, timeoutMs: 1000 }));
  assert.is(error.code, 'SOCKS_TRUNCATED');
});

test('rejects a request truncated inside the address', async () => {
  const { client, server } = connect();
  client.end(Buffer.from([...NOAUTH_GREETING, 5, 1, 0, 1, 127, 0]));
  const error = await rejection(acceptSocks5(server, { users: null, timeoutMs: 1000 }));
  assert.is(error.code, 'SOCKS_TRUNCATED');
});

test('rejects as truncated when the client goes away mid-handshake', async () => {
  const { client, server } = connect();
  client.write(Buffer.from([5, 1]));
  const pending = acceptSocks5(server, { users: null, timeoutMs: 1000 });
  await tick();
  client.destroy();
  assert.is((await rejection(pending)).code, 'SOCKS_TRUNCATED');
});

test('rejects a stream that was already ended before the handshake', async () => {
  const { client, server } = connect();
  client.end();
  server.resume();
  await new Promise((resolve) => server.once('end', resolve));
  server.pause();
  const error = await rejection(acceptSocks5(server, { users: null, timeoutMs: 1000 }));
  assert.is(error.code, 'SOCKS_TRUNCATED');
});

test('rejects with the cause when the stream fails', async () => {
  const { server } = connect();
  const pending = acceptSocks5(server, { users: null, timeoutMs: 1000 });
  const cause = new Error('connection reset');
  server.destroy(cause);
  const error = await rejection(pending);
  assert.is(error.code, 'HANDSHAKE_STREAM_ERROR');
  assert.is(error.cause, cause);
});

test('times out a client that stops sending', async () => {
  const { client, server } = connect();
  client.write(Buffer.from([5]));
  const started = Date.now();
  const error = await rejection(acceptSocks5(server, { users: null, timeoutMs: 40 }));
  assert.is(error.code, 'HANDSHAKE_TIMEOUT');
  assert.ok(Date.now() - started >= 35, 'not rejected before the deadline');
});

test('reads a handshake that arrives one byte at a time', async () => {
  const { client, server } = connect();
  const pending = acceptSocks5(server, { users: [ALICE], timeoutMs: 1000 });
  for (const byte of [...USERPASS_GREETING, ...userPass('alice', ALICE.password), ...CONNECT_IPV4]) {
    client.write(Buffer.from([byte]));
    await tick();
  }
  const request = await pending;
  assert.equal(request.target, { host: '127.0.0.1', port: 8080 });
  assert.is(request.rxBytes, 4 + 22 + 10);
});

test('leaves payload pipelined after the request in the stream, paused until resumed', async () => {
  const { client, server } = connect();
  client.write(Buffer.concat([Buffer.from([...NOAUTH_GREETING, ...CONNECT_IPV4]), Buffer.from('GET / HTTP/1.1\r\n')]));
  const request = await acceptSocks5(server, { users: null, timeoutMs: 1000 });
  assert.is(request.rxBytes, 13);
  await tick();
  assert.is(server.listenerCount('data'), 0);
  assert.is(server.listenerCount('readable'), 0);
  assert.is(server.readableFlowing, false);
  const chunks: Buffer[] = [];
  server.on('data', (chunk: Buffer) => chunks.push(chunk));
  client.write('Host: example\r\n');
  await tick();
  assert.is(chunks.length, 0, 'a data listener alone does not start a paused stream');
  server.resume();
  await tick();
  assert.is(Buffer.concat(chunks).toString(), 'GET / HTTP/1.1\r\nHost: example\r\n');
});

/** Everything the server side yields from now on, once the client's writes have landed. */
async function rest(server: Duplex): Promise<string> {
  const chunks: Buffer[] = [];
  server.on('data', (chunk: Buffer) => chunks.push(chunk)).resume();
  await tick();
  return Buffer.concat(chunks).toString();
}

test('reads a handshake split in two at every byte, leaving the payload after it in the stream', async () => {
  const CONNECT_DOMAIN = [5, 1, 0, 3, 6, ...Buffer.from('a.test'), 0, 80];
  const handshake = [...USERPASS_GREETING, ...userPass('alice', ALICE.password), ...CONNECT_DOMAIN];
  const bytes = Buffer.concat([Buffer.from(handshake), Buffer.from('payload')]);
  for (let split = 1; split < bytes.length; split++) {
    const { client, server, received } = connect();
    const pending = acceptSocks5(server, { users: [ALICE], timeoutMs: 1000 });
    client.write(bytes.subarray(0, split));
    await tick();
    client.write(bytes.subarray(split));
    const request = await pending;
    assert.equal(request.target, { host: 'a.test', port: 80 }, `split at ${split}`);
    assert.is(request.rxBytes, handshake.length, `split at ${split}`);
    assert.equal(await received(), [5, 2, 1, 0], `split at ${split}`);
    assert.is(await rest(server), 'payload', `split at ${split}`);
  }
});

test('reads a handshake that was buffered before it started, as after the mixed port peeked at it', async () => {
  const { client, server } = connect();
  client.write(Buffer.concat([Buffer.from([...NOAUTH_GREETING, ...CONNECT_IPV4]), Buffer.from('early')]));
  await tick();
  assert.ok(server.readableLength > 0, 'bytes are waiting in the stream');
  const request = await acceptSocks5(server, { users: null, timeoutMs: 1000 });
  assert.equal(request.target, { host: '127.0.0.1', port: 8080 });
  assert.is(await rest(server), 'early');
});

test('writes success and failure replies with the bound address', async () => {
  const { client, server, received } = connect();
  assert.is(writeSocks5Reply(server, SOCKS5_REPLY.succeeded, { host: '10.1.2.3', port: 1080 }), 10);
  assert.is(writeSocks5Reply(server, SOCKS5_REPLY.connectionRefused), 10);
  assert.is(writeSocks5Reply(server, SOCKS5_REPLY.succeeded, { host: '::1', port: 443 }), 22);
  assert.is(writeSocks5Reply(server, SOCKS5_REPLY.hostUnreachable, { host: 'relay.local', port: 1 }), 18);
  client.end();
  assert.equal(await received(), [
    5, 0, 0, 1, 10, 1, 2, 3, 0x04, 0x38,
    5, 5, 0, 1, 0, 0, 0, 0, 0, 0,
    5, 0, 0, 4, ...new Array(15).fill(0), 1, 0x01, 0xbb,
    5, 4, 0, 3, 11, ...Buffer.from('relay.local'), 0, 1,
  ]);
});

test.run();
