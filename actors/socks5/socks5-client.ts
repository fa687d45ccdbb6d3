import type { Socket } from 'node:net';
import { MAX_SOCKS5_CREDENTIAL_BYTES } from '../config/schema-outbounds.js';
import type { Secret } from '../config/secret.js';
import { HopNegotiationError } from '../errors/hop-error.js';
import { authority } from '../net/authority.js';
import { ExactReader } from '../net/exact-reader.js';
import { ATYP, encodeAddress, fixedAddressLength, hostFromBytes, type SocksTarget } from './socks5-wire.js';

export type Socks5Command = 'connect' | 'udp_associate';

/** The login a hop may ask for: a `socks` outbound's credentials, when it has them. */
export interface Socks5Login {
  username?: string;
  password?: Secret;
}

/** The hop's success reply, and what came after it. */
export interface Socks5Answer {
  /** BND.ADDR:BND.PORT: for UDP ASSOCIATE, where the hop relays datagrams. */
  bound: SocksTarget;
  /** Bytes that arrived after the reply: the tunnel's first bytes, not handshake. */
  surplus: Buffer;
}

const COMMANDS: Record<Socks5Command, { code: number; verb: string }> = {
  connect: { code: 1, verb: 'CONNECT' },
  udp_associate: { code: 3, verb: 'UDP ASSOCIATE' },
};

const METHOD = { noAuth: 0x00, userPass: 0x02, noneAcceptable: 0xff } as const;

/** REP names (hop-failure blames the next hop for the "could not reach" ones) and their text. */
const REPLIES: Record<number, { name: string; text: string }> = {
  1: { name: 'Failure', text: 'general SOCKS server failure' },
  2: { name: 'NotAllowed', text: 'connection not allowed by ruleset' },
  3: { name: 'NetworkUnreachable', text: 'network unreachable' },
  4: { name: 'HostUnreachable', text: 'host unreachable' },
  5: { name: 'ConnectionRefused', text: 'connection refused' },
  6: { name: 'TTLExpired', text: 'TTL expired' },
  7: { name: 'CommandNotSupported', text: 'command not supported' },
  8: { name: 'AddressNotSupported', text: 'address type not supported' },
};

const NO_CREDENTIALS = 'requires authentication and no username/password is configured';

/**
 * The client side of SOCKS5 (RFC 1928) with username/password (RFC 1929) on a socket
 * connected to `hop` (directly, or through the hops before it): greeting, login when
 * the hop asks for it, then `command` for `dest`. Every answer is checked against the
 * RFC before it is believed, so no hop's bytes pass for tunnel payload; a failure is a
 * HopNegotiationError that names what the hop did, never a credential. The whole
 * exchange is bounded by `timeoutMs`; on failure the caller destroys the socket.
 */
export async function socks5Request(socket: Socket, hop: Socks5Login, command: Socks5Command, dest: SocksTarget, timeoutMs: number): Promise<Socks5Answer> {
  const reader = new ExactReader(socket, (err) =>
    err
      ? new HopNegotiationError('closed', `failed during the SOCKS5 handshake: ${err.message}`)
      : new HopNegotiationError('closed', 'closed the connection during the SOCKS5 handshake'),
  );
  const timer = setTimeout(() => reader.fail(new HopNegotiationError('timeout', 'did not finish the SOCKS5 handshake in time')), timeoutMs);
  try {
    const login = loginOf(hop);
    socket.write(Buffer.from(login ? [5, 2, METHOD.noAuth, METHOD.userPass] : [5, 1, METHOD.noAuth]));
    const [version, method] = await reader.take(2);
    if (version !== 5) throw notSocks5('the greeting', version!);
    if (method === METHOD.userPass) {
      // A hop that picks a method it was not offered gets no empty login.
      if (!login) throw new HopNegotiationError('auth', NO_CREDENTIALS);
      socket.write(login);
      const [, status] = await reader.take(2);
      if (status !== 0) throw new HopNegotiationError('auth', `rejected the username/password of user "${hop.username}"`);
    } else if (method === METHOD.noneAcceptable) {
      throw new HopNegotiationError('auth', login ? 'accepts neither no-auth nor username/password authentication' : NO_CREDENTIALS);
    } else if (method !== METHOD.noAuth) {
      throw new HopNegotiationError('protocol', `chose authentication method ${method}, which was not offered`);
    }
    const { code, verb } = COMMANDS[command];
    const request = encodeAddress(dest, 3);
    request.set([5, code, 0]);
    socket.write(request);
    return { bound: await readReply(reader, verb, command === 'connect' ? ` ${authority(dest)}` : ''), surplus: reader.release() };
  } catch (err) {
    reader.release();
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** The username/password request (RFC 1929), or null without credentials. */
function loginOf(hop: Socks5Login): Buffer | null {
  if (hop.username === undefined || hop.password === undefined) return null;
  const user = Buffer.from(hop.username);
  const pass = Buffer.from(hop.password.reveal());
  // Config validation refuses longer ones; this holds a hop built in code.
  if (user.length > MAX_SOCKS5_CREDENTIAL_BYTES || pass.length > MAX_SOCKS5_CREDENTIAL_BYTES) {
    throw new HopNegotiationError('auth', `has a username or password over ${MAX_SOCKS5_CREDENTIAL_BYTES} bytes, which SOCKS5 cannot send`);
  }
  return Buffer.concat([Buffer.from([1, user.length]), user, Buffer.from([pass.length]), pass]);
}

/** VER REP RSV ATYP BND.ADDR BND.PORT: the bound address of a success, else what the hop said. */
async function readReply(reader: ExactReader, verb: string, dest: string): Promise<SocksTarget> {
  const [version, rep, , atyp] = await reader.take(4);
  if (version !== 5) throw notSocks5(verb, version!);
  if (rep !== 0) {
    const reply = REPLIES[rep!];
    throw new HopNegotiationError('rejected', `answered ${verb}${dest} with: ${reply?.text ?? `reply code ${rep}`}`, reply?.name);
  }
  const length = fixedAddressLength(atyp!) ?? (atyp === ATYP.domain ? (await reader.take(1))[0]! : null);
  if (length === null) throw new HopNegotiationError('protocol', `answered ${verb} with address type ${atyp}, which SOCKS5 does not have`);
  const address = await reader.take(length + 2);
  return { host: hostFromBytes(atyp!, address.subarray(0, length)), port: address.readUInt16BE(length) };
}

function notSocks5(answering: string, version: number): HopNegotiationError {
  return new HopNegotiationError('protocol', `answered ${answering} with something that is not SOCKS5 (version ${version})`);
}
