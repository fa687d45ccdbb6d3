import net from 'node:net';

/** Idle TCP connections to one port that never send a byte, as a slowloris holds them. */
export interface Holder {
  /** Connections that opened. */
  readonly opened: number;
  /** Connections that could not open. */
  readonly refused: number;
  /** Open connections the server has closed so far. */
  closedByServer(): number;
  /** Closes every connection still open. */
  release(): void;
}

function connectOnce(port: number, sockets: net.Socket[]): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      sockets.push(socket);
      // Read, so the server's FIN shows as readableEnded.
      socket.resume();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** Opens count connections to 127.0.0.1:port, concurrency at a time, and holds them. */
export async function holdIdle(port: number, count: number, concurrency: number): Promise<Holder> {
  const sockets: net.Socket[] = [];
  let next = 0;
  let refused = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next += 1;
      if (!(await connectOnce(port, sockets))) refused += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return {
    opened: sockets.length,
    refused,
    closedByServer: () => sockets.filter((s) => s.readableEnded || s.destroyed).length,
    release: () => {
      for (const s of sockets) s.destroy();
    },
  };
}
