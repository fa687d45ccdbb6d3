import http from 'node:http';
import type net from 'node:net';
import { WAIT_MS } from './far-bound.js';
import { waitFor } from './wait-for.js';

/** One TCP connection the origin accepted, with the bytes it moved on its socket. */
export interface OriginConnection {
  /** Request targets (path and query) served on this connection, in order. */
  paths: string[];
  /** The Host header of each of those requests (undefined where it had none). */
  hosts: (string | undefined)[];
  /** Everything the origin wrote: status lines, headers and bodies. */
  readonly bytesWritten: number;
  /** Everything the origin read: request lines, headers and bodies. */
  readonly bytesRead: number;
  readonly closed: boolean;
}

export interface Origin {
  port: number;
  /** `http://<host>:<port><path>` */
  url(path: string): string;
  connections(): OriginConnection[];
  /** The connection that served `path` (exact request target); undefined if none did. */
  connectionFor(path: string): OriginConnection | undefined;
  close(): Promise<void>;
}

/**
 * A local HTTP origin on 127.0.0.1 (or another loopback address `at.host`, on `at.port`) with answers of known size. Routes (any query is
 * ignored except where named, so tests can make each target unique):
 * - `/bytes/N`: 200 with an N-byte body;
 * - `/silent`: 200 and a 6-byte chunk, then nothing, never ending;
 * - `/trickle?chunks=C&size=S&every_ms=T`: C chunks of S bytes, one every T ms;
 * - `/upload`: reads the whole request body, then 200 with its length as the body
 *   (an `Expect: 100-continue` is answered 100 Continue first, by Node).
 */
export async function startOrigin(at: { host?: string; port?: number } = {}): Promise<Origin> {
  const host = at.host ?? '127.0.0.1';
  const conns: { socket: net.Socket; info: OriginConnection }[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://origin');
    const served = conns.find((c) => c.socket === req.socket)?.info;
    served?.paths.push(req.url ?? '');
    served?.hosts.push(req.headers.host);
    const bytes = /^\/bytes\/(\d+)$/.exec(url.pathname);
    if (bytes) return sendBytes(res, Number(bytes[1]));
    if (url.pathname === '/silent') {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('hello\n');
      return;
    }
    if (url.pathname === '/trickle') return trickle(res, url.searchParams);
    if (url.pathname === '/upload') return countUpload(req, res);
    res.writeHead(404, { 'Content-Length': '0' }).end();
  });
  server.on('connection', (socket) => {
    const info: OriginConnection = {
      paths: [],
      hosts: [],
      get bytesWritten() {
        return socket.bytesWritten;
      },
      get bytesRead() {
        return socket.bytesRead;
      },
      get closed() {
        return socket.closed;
      },
    };
    conns.push({ socket, info });
  });
  // Node closes a connection that sent no whole request within 60 s (checked every 30
  // s): idle tunnels a spec holds open to the origin (large-flow-table opens hundreds
  // one by one, which on a loaded machine takes that long) must stay until it closes them.
  server.headersTimeout = 0;
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at.port ?? 0, host, resolve);
  });
  // A spec that failed before close() must not keep the runner alive.
  server.unref();
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    url: (path) => `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`,
    connections: () => conns.map((c) => c.info),
    connectionFor: (path) => conns.find((c) => c.info.paths.includes(path))?.info,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function sendBytes(res: http.ServerResponse, n: number): void {
  res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(n) });
  res.end(Buffer.alloc(n, 'x'));
}

function countUpload(req: http.IncomingMessage, res: http.ServerResponse): void {
  let length = 0;
  req.on('data', (chunk: Buffer) => (length += chunk.length));
  req.on('end', () => sendText(res, String(length)));
}

function sendText(res: http.ServerResponse, text: string): void {
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': String(text.length) });
  res.end(text);
}

function trickle(res: http.ServerResponse, params: URLSearchParams): void {
  const chunks = Number(params.get('chunks') ?? 10);
  const size = Number(params.get('size') ?? 1000);
  const every = Number(params.get('every_ms') ?? 250);
  res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(chunks * size) });
  let sent = 0;
  const timer = setInterval(() => {
    res.write(Buffer.alloc(size, 't'));
    if (++sent < chunks) return;
    clearInterval(timer);
    res.end();
  }, every);
  res.on('close', () => clearInterval(timer));
}

/** Waits until the connection that served `path` has closed, so its byte counts are final. */
export function closedConnection(origin: Origin, path: string, timeoutMs = WAIT_MS): Promise<OriginConnection> {
  return waitFor(
    () => {
      const conn = origin.connectionFor(path);
      return conn?.closed ? conn : undefined;
    },
    timeoutMs,
    `the origin connection of ${path} to close`,
  );
}
