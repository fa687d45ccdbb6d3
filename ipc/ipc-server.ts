import fs from 'node:fs';
import net from 'node:net';
import type { Logger } from 'pino';
import type { ControlOps } from '../actors/control/control-ops.js';
import { FullWarning } from '../actors/base/full-warning.js';
import type { BusEvent } from '../streams/contract.js';
import { IpcConnection } from './ipc-connection.js';
import { LINE_TIMEOUT_MS, MAX_CONNECTIONS, MAX_LINE_BYTES, type IpcErrorReply } from './ipc-messages.js';
import { claimSocketPath, listenPrivately } from './ipc-socket-file.js';

export interface IpcServer {
  path: string;
  /** Connections that hold a subscription now. */
  subscribers(): number;
  close(): Promise<void>;
}

export interface IpcServerOptions {
  /** Unix socket path (control.ipc). */
  path: string;
  log: Logger;
  /** Where ipc.connected / ipc.disconnected go: the engine's bus. */
  publish: (event: BusEvent) => void;
  /** Largest request line in bytes. @defaultValue 1 MiB */
  maxLineBytes?: number;
  /** Bytes a client may leave unread before it is cut off. @defaultValue 8 MiB */
  maxBacklogBytes?: number;
  /** Fan-out tick in ms. @defaultValue 10 */
  tickMs?: number;
  /** Ms a request line may take to end. @defaultValue 30 s */
  lineTimeoutMs?: number;
  /** Connections held at once. @defaultValue MAX_CONNECTIONS */
  maxConnections?: number;
}

/** Ms a client being cut off may take to read its backlog and the final error line; its memory is already capped. */
const CLOSE_GRACE_MS = 10_000;

/**
 * The IPC channel: newline-delimited JSON on a Unix socket with mode 0600, a thin
 * transport over the control operations. Refuses to start while another node answers
 * on the path; removes a socket a dead node left behind.
 */
export async function startIpcServer(ops: ControlOps, opts: IpcServerOptions): Promise<IpcServer> {
  await claimSocketPath(opts.path);
  const connections = new Set<IpcConnection>();
  const pipe = opts.path;
  const refuse = refuser(opts.maxConnections ?? MAX_CONNECTIONS, opts.log);
  // Half-open, so a client that sends its requests and ends its side still gets every reply.
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    if (refuse(socket, connections.size)) return;
    const conn = new IpcConnection(socket, {
      ops,
      log: opts.log,
      maxLineBytes: opts.maxLineBytes ?? MAX_LINE_BYTES,
      maxBacklogBytes: opts.maxBacklogBytes ?? 8 * 1_048_576,
      tickMs: opts.tickMs ?? 10,
      closeGraceMs: CLOSE_GRACE_MS,
      lineTimeoutMs: opts.lineTimeoutMs ?? LINE_TIMEOUT_MS,
    });
    connections.add(conn);
    opts.publish({ event_type: 'ipc.connected', payload: { active: connections.size, pipe } });
    void conn.closed.then(({ error }) => {
      connections.delete(conn);
      const payload = error === null ? { active: connections.size, pipe } : { active: connections.size, pipe, error };
      opts.publish({ event_type: 'ipc.disconnected', payload });
      if (error !== null) opts.log.debug({ error }, 'IPC client disconnected abnormally');
    });
  });
  await listenPrivately(server, opts.path);
  server.on('error', (err) => opts.log.error({ err }, 'IPC server error'));
  opts.log.info({ path: opts.path }, 'IPC channel listening');

  let closing: Promise<void> | null = null;
  const close = async (): Promise<void> => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    const ended = Array.from(connections, (conn) => {
      conn.close();
      return conn.closed;
    });
    await Promise.all([closed, ...ended]);
    fs.rmSync(opts.path, { force: true });
  };
  return {
    path: opts.path,
    subscribers: () => Array.from(connections).filter((conn) => conn.subscribed).length,
    close: () => (closing ??= close()),
  };
}

/**
 * Ends a connection over the limit with one error line, before anything else: it was
 * never connected, so no ipc.connected / ipc.disconnected.
 */
function refuser(limit: number, log: Logger): (socket: net.Socket, active: number) => boolean {
  const full = new FullWarning(log, limit, 'IPC channel full: refusing connections until one ends');
  return (socket, active) => {
    if (active < limit) {
      full.admitted();
      return false;
    }
    full.refused();
    const reply: IpcErrorReply = {
      type: 'error',
      code: 'TOO_MANY_CONNECTIONS',
      message: `the IPC channel holds ${limit} connections, its most; try again when one ends`,
    };
    socket.on('error', () => socket.destroy());
    socket.end(`${JSON.stringify(reply)}\n`);
    // A client that never reads the line or never closes its side must not hold the socket.
    const cut = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS);
    socket.once('close', () => clearTimeout(cut));
    return true;
  };
}
