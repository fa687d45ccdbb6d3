import net from 'node:net';

/**
 * The servers the proxies connect to. Every connection is closed from the server side
 * first, so TIME_WAIT lands on the listening ports; were clients to close first, each
 * connection would park an ephemeral port for 60 s and a run would exhaust the range
 * (Dante binds its outgoing sockets before connecting and fails first).
 */
export interface Origins {
  /** Sends the configured number of bytes, then closes. */
  readonly sourcePort: number;
  /** Echoes until closeEchoes() closes its connections. */
  readonly echoPort: number;
  /** Echoes ECHO_BYTES bytes, then closes. */
  readonly echoOncePort: number;
  closeEchoes(): void;
  close(): Promise<void>;
}

/** The payload of one short-connection cycle and of an idle tunnel's one echo. */
export const ECHO_BYTES = 16;

/** One reused buffer; its contents do not matter to a relay. */
const CHUNK = Buffer.alloc(1 << 20, 0x61);

function streamBytes(socket: net.Socket, total: number): void {
  let left = total;
  const pump = (): void => {
    while (left > 0) {
      const n = Math.min(left, CHUNK.length);
      left -= n;
      if (!socket.write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n))) {
        socket.once('drain', pump);
        return;
      }
    }
    socket.end();
  };
  pump();
}

function echoOnce(socket: net.Socket): void {
  let received = 0;
  socket.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received >= ECHO_BYTES) socket.end(chunk);
    else socket.write(chunk);
  });
}

function listen(onSocket: (s: net.Socket) => void): Promise<{ server: net.Server; sockets: Set<net.Socket> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    onSocket(socket);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // Thousands of tunnels connect in bursts; a short backlog would drop SYNs.
    server.listen({ host: '127.0.0.1', port: 0, backlog: 4096 }, () => resolve({ server, sockets }));
  });
}

function portOf(server: net.Server): number {
  return (server.address() as net.AddressInfo).port;
}

export async function startOrigins(sourceBytes: number): Promise<Origins> {
  const source = await listen((s) => streamBytes(s, sourceBytes));
  const echo = await listen((s) => s.pipe(s));
  const once = await listen(echoOnce);
  const closeOne = (o: { server: net.Server; sockets: Set<net.Socket> }): Promise<void> =>
    new Promise((resolve) => {
      for (const s of o.sockets) s.destroy();
      o.server.close(() => resolve());
    });
  return {
    sourcePort: portOf(source.server),
    echoPort: portOf(echo.server),
    echoOncePort: portOf(once.server),
    closeEchoes: () => {
      for (const s of echo.sockets) s.end();
    },
    close: async () => {
      await Promise.all([closeOne(source), closeOne(echo), closeOne(once)]);
    },
  };
}
