import type { Duplex } from 'node:stream';
import type { FlowAuth } from '../../streams/contract.js';
import { NO_AUTH, userAuth, verifyUser, type InboundAccount } from '../contracts/credentials.js';
import { extend } from '../base/revise.js';
import { HandshakeError } from './handshake-error.js';
import { ATYP, SOCKS5_REPLY, encodeAddress, fixedAddressLength, targetHost, type SocksTarget } from './socks5-wire.js';

export { SOCKS5_REPLY } from './socks5-wire.js';

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
  users: readonly InboundAccount[] | null;
  /** Deadline for the whole handshake in milliseconds, so a client trickling bytes cannot hold a slot. */
  timeoutMs: number;
}

/**
 * The handshake as a parser that yields how many bytes it needs next and is handed exactly
 * that many: the driver feeds it synchronously from what is buffered and waits only when
 * bytes are missing, so a greeting or request that arrived whole costs no promise.
 */
type Steps<T> = Generator<number, T, Buffer>;

const METHOD = { noAuth: 0x00, userPass: 0x02 } as const;
const COMMANDS: ReadonlyMap<number, Socks5Request['command']> = new Map([[1, 'connect'], [3, 'udp_associate']]);
// Shared by every connection: a socket write does not change the buffer it is given.
const CHOSE_NO_AUTH = Buffer.from([5, METHOD.noAuth]);
const CHOSE_USER_PASS = Buffer.from([5, METHOD.userPass]);
const NONE_ACCEPTABLE = Buffer.from([5, 0xff]);
const AUTH_OK = Buffer.from([1, 0]);
const AUTH_FAILED = Buffer.from([1, 1]);
const EMPTY = Buffer.alloc(0);
const UNBOUND: SocksTarget = { host: '0.0.0.0', port: 0 };

/**
 * Runs the server side of RFC 1928 + RFC 1929 up to (not including) the final reply, which the
 * caller sends with writeSocks5Reply once it knows the outcome. Bytes the client sent after the
 * request stay in the stream, which is left paused with no listener of ours attached:
 * pipe() or resume() starts it. On rejection the protocol's error answer, where it has
 * one, is already written; the caller closes the stream.
 */
export function acceptSocks5(stream: Duplex, opts: Socks5AcceptOptions): Promise<Socks5Request> {
  return new Promise((resolve, reject) => {
    const steps = serverSteps(stream, opts.users ?? []);
    const done = (request: Omit<Socks5Request, 'rxBytes'>, rxBytes: number): void => resolve(extend(request, { rxBytes }));
    new StepFeeder(stream, opts.timeoutMs, steps, done, reject);
  });
}

/** Writes VER REP RSV ATYP BND.ADDR BND.PORT and returns its length. */
export function writeSocks5Reply(stream: Duplex, rep: number, bound: SocksTarget = UNBOUND): number {
  const reply = encodeAddress(bound, 3);
  reply[0] = 5;
  reply[1] = rep;
  stream.write(reply);
  return reply.length;
}

function* serverSteps(stream: Duplex, users: readonly InboundAccount[]): Steps<Omit<Socks5Request, 'rxBytes'>> {
  const greeting = yield 2;
  if (greeting[0] !== 5) throw new HandshakeError('SOCKS_BAD_VERSION', 'greeting is not SOCKS version 5');
  const methods = yield greeting[1];
  const wanted = users.length > 0 ? METHOD.userPass : METHOD.noAuth;
  if (!methods.includes(wanted)) {
    stream.write(NONE_ACCEPTABLE);
    throw new HandshakeError('SOCKS_NO_ACCEPTABLE_METHOD', 'client offers no acceptable authentication method');
  }
  if (wanted === METHOD.noAuth) {
    stream.write(CHOSE_NO_AUTH);
    const { command, target } = yield* readRequest(stream);
    return { command, target, auth: noAuth(), txBytes: CHOSE_NO_AUTH.length };
  }
  stream.write(CHOSE_USER_PASS);
  const auth = yield* authenticate(stream, users);
  const { command, target } = yield* readRequest(stream);
  return { command, target, auth, txBytes: CHOSE_USER_PASS.length + AUTH_OK.length };
}

function noAuth(): Socks5Request['auth'] {
  return { ...NO_AUTH, attributes: {} } as Socks5Request['auth'];
}

function* authenticate(stream: Duplex, users: readonly InboundAccount[]): Steps<Socks5Request['auth']> {
  const head = yield 2;
  if (head[0] !== 1) throw new HandshakeError('SOCKS_BAD_VERSION', 'username/password sub-negotiation is not version 1');
  const nameLength = head[1];
  const nameAndLength = yield nameLength + 1;
  const password = yield nameAndLength[nameLength];
  const username = nameAndLength.toString('utf8', 0, nameLength);
  const user = verifyUser(users, username, password);
  if (user === null) {
    stream.write(AUTH_FAILED);
    throw new HandshakeError('SOCKS_AUTH_FAILED', 'username/password authentication failed', offeredName(users, username, nameLength));
  }
  stream.write(AUTH_OK);
  return userAuth('socks5', user) as Socks5Request['auth'];
}

/**
 * What the log may say of a refused name. ULEN is the only framing: when it is too
 * large, the bytes read as the name run on into PLEN and the password. A name that is
 * a configured account is framed right; any other is logged by its length only.
 */
function offeredName(users: readonly InboundAccount[], username: string, nameLength: number): { username?: string; usernameLength: number } {
  return users.some((u) => u.username === username) ? { username, usernameLength: nameLength } : { usernameLength: nameLength };
}

function* readRequest(stream: Duplex): Steps<Pick<Socks5Request, 'command' | 'target'>> {
  const head = yield 4;
  if (head[0] !== 5) throw new HandshakeError('SOCKS_BAD_VERSION', 'request is not SOCKS version 5');
  const cmd = head[1];
  const atyp = head[3];
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
  const length = fixed ?? (yield 1)[0];
  const rest = yield length + 2;
  const host = targetHost(atyp, rest.subarray(0, length));
  // RFC 1928 has no reply for a malformed address: 0x08 says the ATYP is unknown,
  // and the domain type is supported. General failure, then.
  if (host === null) {
    writeSocks5Reply(stream, SOCKS5_REPLY.generalFailure);
    throw new HandshakeError('SOCKS_BAD_ADDRESS', 'request names a domain that is not a plausible host name');
  }
  return { command, target: { host, port: rest.readUInt16BE(length) } };
}

/**
 * Feeds a parser exact byte counts from the stream's 'data' chunks and settles once with
 * the parser's result or the first failure. Bytes past the handshake are put back with
 * unshift() on a paused stream, so nothing is lost. Flowing mode, not 'readable' and
 * read(n): each chunk arrives without the two next-tick turns per chunk that paused
 * reading costs in Node's streams.
 */
class StepFeeder<T> {
  private total = 0;
  private step: IteratorResult<number, T>;
  /** Received and not yet handed to the parser. */
  private pending: Buffer = EMPTY;
  private settled = false;
  private readonly timer: NodeJS.Timeout;
  private readonly onData = (chunk: Buffer): void => {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    this.advance();
  };
  private readonly onEnd = (): void => this.fail(truncated());
  private readonly onError = (cause: Error): void =>
    this.fail(new HandshakeError('HANDSHAKE_STREAM_ERROR', 'stream failed during the handshake', { cause }));

  constructor(
    private readonly stream: Duplex,
    timeoutMs: number,
    private readonly steps: Steps<T>,
    private readonly done: (value: T, rxBytes: number) => void,
    private readonly failed: (error: unknown) => void,
  ) {
    this.step = steps.next();
    this.timer = setTimeout(
      () => this.fail(new HandshakeError('HANDSHAKE_TIMEOUT', `handshake not complete within ${timeoutMs} ms`)),
      timeoutMs,
    );
    if (stream.readableEnded || stream.destroyed) {
      this.fail(truncated());
      return;
    }
    stream.on('data', this.onData).on('end', this.onEnd).on('close', this.onEnd).on('error', this.onError);
    // A stream paused before (the mixed inbound read its first byte) does not flow by itself.
    stream.resume();
  }

  /** Runs the parser as far as the received bytes go. */
  private advance(): void {
    if (this.settled) return;
    const bytes = this.pending;
    let offset = 0;
    try {
      let step = this.step;
      while (!step.done) {
        const n = step.value;
        if (bytes.length - offset < n) {
          this.pending = bytes.subarray(offset);
          this.step = step;
          return;
        }
        const chunk = bytes.subarray(offset, offset + n);
        offset += n;
        this.total += n;
        step = this.steps.next(chunk);
      }
      if (this.release(bytes.subarray(offset))) this.done(step.value, this.total);
    } catch (error) {
      this.fail(error);
    }
  }

  private fail(error: unknown): void {
    if (this.release(EMPTY)) this.failed(error);
  }

  /**
   * Detaches from the stream and leaves it paused with `rest` back in front; false
   * when that already happened (the feeder settles once).
   */
  private release(rest: Buffer): boolean {
    if (this.settled) return false;
    this.settled = true;
    clearTimeout(this.timer);
    this.stream
      .off('data', this.onData)
      .off('end', this.onEnd)
      .off('close', this.onEnd)
      .off('error', this.onError);
    this.stream.pause();
    if (rest.length > 0) this.stream.unshift(rest);
    return true;
  }
}

function truncated(): HandshakeError {
  return new HandshakeError('SOCKS_TRUNCATED', 'stream ended during the SOCKS5 handshake');
}
