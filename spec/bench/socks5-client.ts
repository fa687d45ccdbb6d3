import net from 'node:net';

export class SocksClientError extends Error {
  readonly code = 'BENCH_SOCKS_CLIENT';
}

const EMPTY = Buffer.alloc(0);
/** Version 5, one method offered: 0x00 no authentication. */
const GREETING = Buffer.from([5, 1, 0]);

/** Reads exact byte counts from a socket, keeping what arrives early for the next read. */
export class ByteReader {
  private buffered: Buffer = EMPTY;
  private waiting: { n: number; resolve: (b: Buffer) => void; reject: (e: Error) => void } | null = null;
  private failure: Error | null = null;

  constructor(private readonly socket: net.Socket) {
    socket.on('data', this.onData);
    socket.on('close', this.onClose);
    socket.on('error', this.onError);
  }

  take(n: number): Promise<Buffer> {
    if (this.buffered.length >= n) return Promise.resolve(this.cut(n));
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting = { n, resolve, reject };
    });
  }

  /** Stops reading; returns the bytes that arrived but were not taken. Errors stay swallowed. */
  release(): Buffer {
    this.socket.off('data', this.onData);
    this.socket.off('close', this.onClose);
    const rest = this.buffered;
    this.buffered = EMPTY;
    return rest;
  }

  private cut(n: number): Buffer {
    const head = this.buffered.subarray(0, n);
    this.buffered = this.buffered.subarray(n);
    return head;
  }

  private readonly onData = (chunk: Buffer): void => {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const w = this.waiting;
    if (w && this.buffered.length >= w.n) {
      this.waiting = null;
      w.resolve(this.cut(w.n));
    }
  };

  private readonly onError = (error: Error): void => {
    this.failure ??= error;
  };

  private readonly onClose = (): void => {
    this.failure ??= new SocksClientError('connection closed');
    const w = this.waiting;
    this.waiting = null;
    w?.reject(this.failure);
  };
}

/** Destroys the socket with an error after ms; returns the canceller. */
export function armTimeout(socket: net.Socket, ms: number, what: string): () => void {
  const timer = setTimeout(() => socket.destroy(new SocksClientError(`${what} timed out after ${ms} ms`)), ms);
  return () => clearTimeout(timer);
}

function connectRequest(port: number): Buffer {
  // CONNECT to 127.0.0.1:port, address type 1 (IPv4).
  return Buffer.from([5, 1, 0, 1, 127, 0, 0, 1, port >> 8, port & 0xff]);
}

async function readReplyAddress(reader: ByteReader, atyp: number | undefined): Promise<void> {
  if (atyp === 1) await reader.take(4 + 2);
  else if (atyp === 4) await reader.take(16 + 2);
  else if (atyp === 3) await reader.take(((await reader.take(1))[0] ?? 0) + 2);
  else throw new SocksClientError(`reply with unknown address type ${atyp}`);
}

/** Opens a tunnel to 127.0.0.1:targetPort through a no-auth SOCKS5 proxy on 127.0.0.1:proxyPort. */
export async function socksConnect(
  proxyPort: number,
  targetPort: number,
  timeoutMs: number,
): Promise<{ socket: net.Socket; reader: ByteReader }> {
  const socket = net.connect({ host: '127.0.0.1', port: proxyPort, noDelay: true });
  const reader = new ByteReader(socket);
  const cancel = armTimeout(socket, timeoutMs, 'SOCKS5 handshake');
  try {
    socket.write(GREETING);
    const method = await reader.take(2);
    if (method[0] !== 5 || method[1] !== 0) throw new SocksClientError(`method reply ${method.toString('hex')}`);
    socket.write(connectRequest(targetPort));
    const head = await reader.take(4);
    if (head[0] !== 5 || head[1] !== 0) throw new SocksClientError(`CONNECT reply ${head.toString('hex')}`);
    await readReplyAddress(reader, head[3]);
    return { socket, reader };
  } catch (error) {
    socket.destroy();
    throw error;
  } finally {
    cancel();
  }
}
