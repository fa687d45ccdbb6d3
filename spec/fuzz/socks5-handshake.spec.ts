import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HandshakeError, type HandshakeErrorCode } from '../../actors/socks5/handshake-error.js';
import type { InboundAccount } from '../../actors/contracts/credentials.js';
import { acceptSocks5, type Socks5Request } from '../../actors/socks5/socks5-handshake.js';
import { encodeAddress, type SocksTarget } from '../../actors/socks5/socks5-wire.js';
import { ipOfHost } from '../../actors/net/ip-of-host.js';
import { isHostName } from '../../actors/net/host-name.js';
import { duplexPair } from '../support/duplex-pair.js';
import { checkProperty } from '../support/fuzz.js';

// The SOCKS5 handshake parser against any bytes a client may send, then end: it settles
// with a request or a HandshakeError of a known code, never another error, never a
// wait for bytes that cannot come; a refused name is kept only when it is an account's.

const SPEC_RUNS = 3000;
const USERS: InboundAccount[] = [{ username: 'alice', password: 'fuzz-Secret-4b1d' }];
const CODES: ReadonlySet<HandshakeErrorCode> = new Set([
  'SOCKS_BAD_VERSION',
  'SOCKS_NO_ACCEPTABLE_METHOD',
  'SOCKS_AUTH_FAILED',
  'SOCKS_BAD_COMMAND',
  'SOCKS_BAD_ADDRESS_TYPE',
  'SOCKS_BAD_ADDRESS',
  'SOCKS_TRUNCATED',
]);

type Outcome = { request: Socks5Request } | { error: unknown };

/** Writes `bytes` from a client that then ends its side, and settles with the parser's outcome. */
async function handshake(bytes: Uint8Array, users: InboundAccount[] | null): Promise<Outcome> {
  const [client, server] = duplexPair();
  client.resume();
  const pending = acceptSocks5(server, { users, timeoutMs: 10_000 });
  client.end(Buffer.from(bytes));
  try {
    return { request: await pending };
  } catch (error) {
    return { error };
  }
}

const byte = fc.integer({ min: 0, max: 255 });
const bytes = (maxLength: number): fc.Arbitrary<Uint8Array> => fc.uint8Array({ maxLength });
/** Near-valid messages: right framing bytes with wrong lengths and values mixed in. */
const greeting = fc.oneof(
  fc.constant([5, 1, 0]),
  fc.constant([5, 1, 2]),
  fc.tuple(fc.constantFrom(5, 4, 0), byte).chain(([v, n]) => fc.array(byte, { maxLength: n }).map((m) => [v, n, ...m])),
);
const subNegotiation = fc
  .tuple(fc.constantFrom(1, 0, 5), fc.string({ maxLength: 12 }), fc.string({ maxLength: 24 }), fc.integer({ min: -3, max: 3 }))
  .map(([version, name, password, skew]) => {
    const n = Buffer.from(name);
    const p = Buffer.from(password);
    return [version, Math.max(0, Math.min(255, n.length + skew)), ...n, p.length, ...p];
  });
const request = fc
  .tuple(fc.constantFrom(5, 4), fc.constantFrom(1, 2, 3, 9), byte, fc.constantFrom(1, 3, 4, 7), bytes(40))
  .map(([v, cmd, rsv, atyp, rest]) => [v, cmd, rsv, atyp, ...rest]);
const clientBytes = fc.oneof(
  bytes(600),
  fc
    .tuple(greeting, fc.option(subNegotiation), request, bytes(8), fc.nat(80))
    .map(([g, s, r, tail, cut]) => {
      const all = [...g, ...(s ?? []), ...r, ...tail];
      return Uint8Array.from(all.slice(0, Math.max(0, all.length - cut)));
    }),
);

test('any client bytes give a request or a HandshakeError of a known code', async () => {
  await checkProperty(
    fc.asyncProperty(clientBytes, fc.boolean(), async (sent, withUsers) => {
      const outcome = await handshake(sent, withUsers ? USERS : null);
      if ('request' in outcome) {
        const { command, target, auth } = outcome.request;
        assert.ok(command === 'connect' || command === 'udp_associate');
        assert.ok(target.host.length > 0 && Number.isInteger(target.port) && target.port >= 0 && target.port <= 0xffff);
        assert.is(auth.scheme, withUsers ? 'socks5' : 'noauth');
        return;
      }
      const { error } = outcome;
      assert.instance(error, HandshakeError, String(error));
      const refusal = error as HandshakeError;
      assert.ok(CODES.has(refusal.code), refusal.code);
      assert.not.ok(refusal.message.includes(USERS[0]!.password), 'the message holds the password');
      if (refusal.username !== undefined) assert.ok(USERS.some((u) => u.username === refusal.username), 'a logged name is an account');
    }),
    SPEC_RUNS,
  );
});

const domain = fc.domain().filter((name) => Buffer.byteLength(name) <= 255 && isHostName(name) && ipOfHost(name) === null);
const target: fc.Arbitrary<SocksTarget> = fc.record({ host: fc.oneof(fc.ipV4(), fc.ipV6(), domain), port: fc.integer({ min: 0, max: 0xffff }) });

test('parse ∘ encode: a request encoded by encodeAddress parses back to the same address, port and command', async () => {
  await checkProperty(
    fc.asyncProperty(target, fc.constantFrom<[number, Socks5Request['command']]>([1, 'connect'], [3, 'udp_associate']), async (t, [cmd, command]) => {
      const message = encodeAddress(t, 3);
      message.set([5, cmd, 0]);
      const outcome = await handshake(Uint8Array.from([5, 1, 0, ...message]), null);
      assert.ok('request' in outcome, 'error' in outcome ? String(outcome.error) : '');
      // An IPv6 address comes back in its canonical text, so the bytes are compared.
      assert.is(outcome.request.command, command);
      assert.equal([...encodeAddress(outcome.request.target)], [...encodeAddress(t)], `${outcome.request.target.host} for ${t.host}`);
    }),
    SPEC_RUNS,
  );
});

test.run();
