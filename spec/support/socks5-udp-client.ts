import dgram from 'node:dgram';
import net from 'node:net';
import { once } from 'node:events';
import { ATYP, decodeUdpDatagram, encodeAddress, encodeUdpHeader, hostFromBytes, type SocksTarget } from '../../actors/socks5/socks5-wire.js';

/** The proxy answered the UDP ASSOCIATE request with a REP other than succeeded. */
export class Socks5ReplyError extends Error {
  readonly code = 'SOCKS5_REPLY_REFUSED';

  constructor(readonly rep: number) {
    super(`proxy answered UDP ASSOCIATE with REP ${rep}`);
  }
}

export interface UdpReply {
  /** The source the proxy named in the reply's SOCKS UDP header. */
  source: SocksTarget;
  data: Buffer;
}

export interface AssociateOptions {
  /** Username/password (RFC 1929); without it the client offers no authentication only. */
  user?: { username: string; password: string };
  /** DST of the request: where the client will send from. @defaultValue 0.0.0.0:0 (not known) */
  from?: SocksTarget;
  /** Local address of the client's UDP socket. @defaultValue 127.0.0.1 */
  bindHost?: string;
  /** Bound on the TCP handshake and on each receive. @defaultValue 3000 */
  timeoutMs?: number;
}

/**
 * The client side of one SOCKS5 UDP ASSOCIATE (RFC 1928 §7): the TCP control
 * connection, the relay address from the reply, and a UDP socket that sends framed
 * datagrams to the relay and unwraps what comes back.
 */
export class Socks5UdpAssociation {
  private readonly inbox: Buffer[] = [];
  private waiter: ((msg: Buffer) => void) | null = null;
  /** Resolves when the proxy ends (or resets) the control connection. */
  readonly controlClosed: Promise<void>;

  constructor(
    readonly control: net.Socket,
    readonly udp: dgram.Socket,
    /** BND.ADDR:BND.PORT of the reply, where datagrams go. */
    readonly relay: SocksTarget,
    private readonly timeoutMs: number,
  ) {
    this.controlClosed = new Promise((resolve) => control.once('close', () => resolve()));
    udp.on('message', (msg) => {
      if (this.waiter) this.waiter(msg);
      else this.inbox.push(msg);
    });
  }

  /** The local port datagrams are sent from. */
  get port(): number {
    return this.udp.address().port;
  }

  /** Sends `data` to `target` through the relay, with a SOCKS UDP header (FRAG = `frag`). */
  send(target: SocksTarget, data: Buffer, frag = 0): void {
    this.sendRaw(Buffer.concat([encodeUdpHeader(target, frag), data]));
  }

  /** Sends bytes to the relay as they are, header and all. */
  sendRaw(datagram: Buffer): void {
    this.udp.send(datagram, this.relay.port, this.relay.host);
  }

  /** The next datagram from the relay, unwrapped; rejects after the timeout. */
  async receive(timeoutMs = this.timeoutMs): Promise<UdpReply> {
    const msg = await this.next(timeoutMs);
    const decoded = decodeUdpDatagram(msg);
    if (!decoded || decoded.frag !== 0) throw new Error(`relay sent a malformed datagram: ${msg.toString('hex')}`);
    return { source: decoded.target, data: Buffer.from(decoded.data) };
  }

  /** Resolves true when no datagram arrives within `ms`. */
  async silentFor(ms: number): Promise<boolean> {
    try {
      await this.next(ms);
      return false;
    } catch {
      return true;
    }
  }

  /** Ends the control connection (which ends the association) and closes the UDP socket. */
  async close(): Promise<void> {
    this.control.end();
    this.udp.close();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.controlClosed, new Promise((resolve) => (timer = setTimeout(resolve, this.timeoutMs)))]);
    clearTimeout(timer);
    this.control.destroy();
  }

  private next(timeoutMs: number): Promise<Buffer> {
    const queued = this.inbox.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        reject(new Error(`no datagram from the relay within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiter = (msg) => {
        clearTimeout(timer);
        this.waiter = null;
        resolve(msg);
      };
    });
  }
}

/** Opens a UDP association through the SOCKS5 server at `proxy` (TCP). */
export async function associate(proxy: SocksTarget, opts: AssociateOptions = {}): Promise<Socks5UdpAssociation> {
  const timeoutMs = opts.timeoutMs ?? 3000;
  const control = net.connect({ host: proxy.host, port: proxy.port });
  const reader = new ControlReader(control, timeoutMs);
  try {
    await once(control, 'connect');
    control.write(Buffer.from(opts.user ? [5, 1, 2] : [5, 1, 0]));
    const [, method] = await reader.take(2);
    if (opts.user) {
      if (method !== 2) throw new Error(`proxy chose method ${method}, not username/password`);
      const name = Buffer.from(opts.user.username);
      const pass = Buffer.from(opts.user.password);
      control.write(Buffer.concat([Buffer.from([1, name.length]), name, Buffer.from([pass.length]), pass]));
      const [, status] = await reader.take(2);
      if (status !== 0) throw new Error('proxy refused the username/password');
    } else if (method !== 0) throw new Error(`proxy chose method ${method}, not no-auth`);
    control.write(Buffer.concat([Buffer.from([5, 3, 0]), encodeAddress(opts.from ?? { host: '0.0.0.0', port: 0 })]));
    const relay = await readReply(reader);
    const udp = dgram.createSocket(net.isIPv6(relay.host) ? 'udp6' : 'udp4');
    udp.bind(0, opts.bindHost ?? (net.isIPv6(relay.host) ? '::1' : '127.0.0.1'));
    await once(udp, 'listening');
    return new Socks5UdpAssociation(control, udp, relay, timeoutMs);
  } catch (err) {
    control.destroy();
    throw err;
  } finally {
    reader.release();
  }
}

async function readReply(reader: ControlReader): Promise<SocksTarget> {
  const [, rep, , atyp] = await reader.take(4);
  if (rep !== 0) throw new Socks5ReplyError(rep!);
  const length = atyp === ATYP.ipv4 ? 4 : atyp === ATYP.ipv6 ? 16 : (await reader.take(1))[0]!;
  const rest = await reader.take(length + 2);
  return { host: hostFromBytes(atyp!, rest.subarray(0, length)), port: rest.readUInt16BE(length) };
}

/** Exact-length reads off the control connection, each bounded by the timeout. */
class ControlReader {
  private buffered = Buffer.alloc(0);
  private wake: (() => void) | null = null;
  private ended = false;
  private readonly onData = (chunk: Buffer): void => {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    this.wake?.();
  };
  private readonly onEnd = (): void => {
    this.ended = true;
    this.wake?.();
  };

  constructor(
    private readonly socket: net.Socket,
    private readonly timeoutMs: number,
  ) {
    socket.on('data', this.onData).on('close', this.onEnd).on('error', this.onEnd);
  }

  async take(n: number): Promise<Buffer> {
    const deadline = Date.now() + this.timeoutMs;
    while (this.buffered.length < n) {
      if (this.ended) throw new Error('proxy closed the control connection during the handshake');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`proxy did not answer within ${this.timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
    const out = this.buffered.subarray(0, n);
    this.buffered = this.buffered.subarray(n);
    return out;
  }

  /** Stops reading; the control connection keeps flowing so its close is seen. */
  release(): void {
    this.socket.off('data', this.onData).off('close', this.onEnd).off('error', this.onEnd);
    this.socket.on('error', () => undefined);
    this.socket.resume();
  }
}
