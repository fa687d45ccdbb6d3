import net from 'node:net';

/** A loopback TCP server for a spec; close() also destroys its open connections. */
export interface Loopback {
  port: number;
  /** Every connection accepted so far. */
  accepted: number;
  close(): Promise<void>;
}

export function serve(onSocket: (socket: net.Socket) => void): Promise<Loopback> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    loop.accepted++;
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    onSocket(socket);
  });
  const loop: Loopback = {
    port: 0,
    accepted: 0,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      loop.port = (server.address() as net.AddressInfo).port;
      resolve(loop);
    });
  });
}

/** Reads exact byte counts from a socket, for scripted fakes. */
export class ByteReader {
  private buffered = Buffer.alloc(0);
  private waiter: (() => void) | null = null;
  private ended = false;

  constructor(private readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.waiter?.();
    });
    socket.on('end', () => {
      this.ended = true;
      this.waiter?.();
    });
  }

  async take(n: number): Promise<Buffer> {
    while (this.buffered.length < n) {
      if (this.ended) throw new Error(`peer ended with ${this.buffered.length} of ${n} bytes`);
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
    const out = this.buffered.subarray(0, n);
    this.buffered = this.buffered.subarray(n);
    return out;
  }

  async until(marker: string): Promise<string> {
    let at = this.buffered.indexOf(marker);
    while (at === -1) {
      if (this.ended) throw new Error(`peer ended before ${JSON.stringify(marker)}`);
      await new Promise<void>((resolve) => (this.waiter = resolve));
      at = this.buffered.indexOf(marker);
    }
    return (await this.take(at + marker.length)).toString('latin1');
  }

  /** Stops reading and hands the unread bytes plus the rest of the stream to `to`. */
  pipeRest(to: net.Socket): void {
    this.socket.removeAllListeners('data');
    this.socket.removeAllListeners('end');
    if (this.buffered.length > 0) to.write(this.buffered);
    this.socket.pipe(to);
  }
}

/** Bridges a fake's client to `dest` once connected, writing `prefix` (the fake's answer) first. */
export function bridge(reader: ByteReader, client: net.Socket, dest: { host: string; port: number }, prefix: Buffer): void {
  const upstream = net.connect({ host: dest.host, port: dest.port, allowHalfOpen: true }, () => {
    client.write(prefix);
    reader.pipeRest(upstream);
    upstream.pipe(client);
  });
  upstream.on('error', () => client.destroy());
  client.on('close', () => upstream.destroy());
}

/** An origin that greets each connection with `greeting`, then echoes what it receives. */
export function greetingOrigin(greeting: string): Promise<Loopback> {
  return serve((socket) => {
    socket.write(greeting);
    socket.pipe(socket);
  });
}

/** Reads from `socket` until `n` bytes arrived. */
export function readBytes(socket: net.Socket, n: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      got = Buffer.concat([got, chunk]);
      if (got.length >= n) {
        socket.removeListener('data', onData);
        resolve(got.toString('latin1'));
      }
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error(`closed after ${got.length} of ${n} bytes: ${got.toString('latin1')}`)));
  });
}
