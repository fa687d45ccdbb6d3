import net from 'node:net';

export interface RawOrigin {
  port: number;
  /** `http://127.0.0.1:<port>/<name>` */
  url(name: string): string;
  close(): Promise<void>;
}

/**
 * An origin that answers a request for `/<name>` with `answers[name]` written as it is,
 * bytes no Node http server would send (a status of 099, a DEL in the reason phrase, a
 * 101 nobody asked for), and leaves the connection open. A null answer is none at all:
 * the request waits as long as the connection lasts.
 */
export async function startRawOrigin(answers: Record<string, string | null>): Promise<RawOrigin> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.once('data', (head: Buffer) => {
      const name = /^[A-Z]+ \/([^ ?]*)/.exec(head.toString('latin1'))?.[1] ?? '';
      const answer = answers[name];
      if (answer === undefined) socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
      else if (answer !== null) socket.write(Buffer.from(answer, 'latin1'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // A spec that failed before close() must not keep the runner alive.
  server.unref();
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    url: (name) => `http://127.0.0.1:${port}/${name}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
