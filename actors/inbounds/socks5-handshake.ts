import type { Duplex } from 'node:stream';
import type { FlowAuth } from '../../streams/contract.js';
import { NO_AUTH, userAuth, verifyUser } from './credentials.js';
import { HandshakeError } from './handshake-error.js';
import { ATYP, SOCKS5_REPLY, encodeAddress, fixedAddressLength, hostFromBytes, type SocksTarget } from './socks5-wire.js';

export { SOCKS5_REPLY } from './socks5-wire.js';

/** A configured account; `password` is the revealed secret. `principal` overrides the username as principal_key. */
export interface Socks5User {
  username: string;
  password: string;
  principal?: string;
}

export interface Socks5Request {
  command: 'connect' | 'udp_associate';
  target: SocksTarget;
  /** Never carries the password: attributes hold only `username`. */
  auth: FlowAuth & { scheme: 'noauth' | 'socks5' };
  /** Handshake bytes read from the client: greeting, auth and request. */
  rxBytes: number;
  /** Handshake bytes written to the client so far (method choice and auth status; not the final reply). */
  txBytes: number;
}

export interface Socks5AcceptOptions {
  /** Non-empty: username/password (method 0x02) is required. null or empty: no authentication (0x00). */
  users: readonly Socks5User[] | null;
  /** Deadline for the whole handshake in milliseconds, so a client trickling bytes cannot hold a slot. */
  timeoutMs: number;
}

const METHOD = { noAuth: 0x00, userPass: 0x02, noneAcceptable: 0xff } as const;
const COMMANDS: ReadonlyMap<number, Socks5Request['command']> = new Map([[1, 'connect'], [3, 'udp_associate']]);

/**
 * Runs the server side of RFC 1928 + RFC 1929 up to (not including) the final reply, which the
 * caller sends with writeSocks5Reply once it knows the outcome. Bytes the client sent after the
 * request stay in the stream, which is left not flowing with no listener of ours attached:
 * pipe() or a 'data' listener starts it. On rejection the protocol's error answer, where it has
 * one, is already written; the caller closes the stream.
 */
export async function acceptSocks5(stream: Duplex, opts: Socks5AcceptOptions): Promise<Socks5Request> {
  const reader = new ExactReader(stream, opts.timeoutMs);
  let txBytes = 0;
  const send = (bytes: number[]): void => {
    stream.write(Buffer.from(bytes));
    txBytes += bytes.length;
  };
  try {
    const [version, count] = await reader.take(2);
    if (version !== 5) throw new HandshakeError('SOCKS_BAD_VERSION', 'greeting is not SOCKS version 5');
    const methods = await reader.take(count);
    const users = opts.users ?? [];
    const wanted = users.length > 0 ? METHOD.userPass : METHOD.noAuth;
    if (!methods.includes(wanted)) {
      send([5, METHOD.noneAcceptable]);
      throw new HandshakeError('SOCKS_NO_ACCEPTABLE_METHOD', 'client offers no acceptable authentication method');
    }
    send([5, wanted]);
    const auth = wanted === METHOD.userPass ? await authenticate(reader, users, send) : noAuth();
    const request = await readRequest(stream, reader);
    return { ...request, auth, rxBytes: reader.total, txBytes };
  } finally {
    reader.release();
  }
}

/** Writes VER REP RSV ATYP BND.ADDR BND.PORT and returns its length. */
export function writeSocks5Reply(stream: Duplex, rep: number, bound: SocksTarget = { host: '0.0.0.0', port: 0 }): number {
  const reply = Buffer.concat([Buffer.from([5, rep, 0]), encodeAddress(bound)]);
  stream.write(reply);
  return reply.length;
}

function noAuth(): Socks5Request['auth'] {
  return { ...NO_AUTH, attributes: {} } as Socks5Request['auth'];
}

async function authenticate(reader: ExactReader, users: readonly Socks5User[], send: (bytes: number[]) => void): Promise<Socks5Request['auth']> {
  const [version, nameLength] = await reader.take(2);
  if (version !== 1) throw new HandshakeError('SOCKS_BAD_VERSION', 'username/password sub-negotiation is not version 1');
  const nameAndLength = await reader.take(nameLength + 1);
  const password = await reader.take(nameAndLength[nameLength]);
  const username = nameAndLength.toString('utf8', 0, nameLength);
  const user = verifyUser(users, username, password);
  if (user === null) {
    send([1, 1]);
    throw new HandshakeError('SOCKS_AUTH_FAILED', 'username/password authentication failed');
  }
  send([1, 0]);
  return userAuth('socks5', user) as Socks5Request['auth'];
}

async function readRequest(stream: Duplex, reader: ExactReader): Promise<Pick<Socks5Request, 'command' | 'target'>> {
  const [version, cmd, , atyp] = await reader.take(4);
  if (version !== 5) throw new HandshakeError('SOCKS_BAD_VERSION', 'request is not SOCKS version 5');
  const command = COMMANDS.get(cmd);
  if (command === undefined) {
    writeSocks5Reply(stream, SOCKS5_REPLY.commandNotSupported);
    throw new HandshakeError('SOCKS_BAD_COMMAND', `command ${cmd} is not supported`);
  }
  const fixed = fixedAddressLength(atyp);
  if (fixed === null && atyp !== ATYP.domain) {
    writeSocks5Reply(stream, SOCKS5_REPLY.addressTypeNotSupported);
    throw new HandshakeError('SOCKS_BAD_ADDRESS_TYPE', `address type ${atyp} is not supported`);
  }
  const length = fixed ?? (await reader.take(1))[0];
  // An empty name would make the dialer connect to localhost.
  if (length === 0) {
    writeSocks5Reply(stream, SOCKS5_REPLY.generalFailure);
    throw new HandshakeError('SOCKS_BAD_ADDRESS', 'request names an empty domain');
  }
  const rest = await reader.take(length + 2);
  return { command, target: { host: hostFromBytes(atyp, rest.subarray(0, length)), port: rest.readUInt16BE(length) } };
}

/** Takes exact byte counts with read(n), so nothing past the handshake is ever taken off the stream. */
class ExactReader {
  total = 0;
  private failure: HandshakeError | null = null;
  private wake: (() => void) | null = null;
  private readonly timer: NodeJS.Timeout;
  private readonly onReadable = (): void => this.wake?.();
  private readonly onEnd = (): void => this.fail(truncated());
  private readonly onError = (cause: Error): void =>
    this.fail(new HandshakeError('HANDSHAKE_STREAM_ERROR', 'stream failed during the handshake', { cause }));

  constructor(private readonly stream: Duplex, timeoutMs: number) {
    this.timer = setTimeout(
      () => this.fail(new HandshakeError('HANDSHAKE_TIMEOUT', `handshake not complete within ${timeoutMs} ms`)),
      timeoutMs,
    );
    stream.on('readable', this.onReadable).on('end', this.onEnd).on('close', this.onEnd).on('error', this.onError);
  }

  async take(n: number): Promise<Buffer> {
    if (n === 0) return Buffer.alloc(0);
    for (;;) {
      if (this.failure !== null) throw this.failure;
      const chunk = this.stream.read(n) as Buffer | null;
      if (chunk !== null) {
        this.total += chunk.length;
        // read(n) hands back a shorter remainder only once the stream has ended.
        if (chunk.length < n) throw truncated();
        return chunk;
      }
      if (this.stream.readableEnded || this.stream.destroyed) throw truncated();
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
  }

  release(): void {
    clearTimeout(this.timer);
    this.stream
      .off('readable', this.onReadable)
      .off('end', this.onEnd)
      .off('close', this.onEnd)
      .off('error', this.onError);
  }

  private fail(error: HandshakeError): void {
    this.failure ??= error;
    this.wake?.();
  }
}

function truncated(): HandshakeError {
  return new HandshakeError('SOCKS_TRUNCATED', 'stream ended during the SOCKS5 handshake');
}
