import net from 'node:net';
import { WAIT_MS } from './far-bound.js';

export interface RawExchange {
  /** Everything the server sent before it closed or the wait ended. */
  data: Buffer;
  /** Whether the server closed (FIN or reset) within the wait. */
  closed: boolean;
}

export interface RawOptions {
  /** Half-close our side after writing, as a client that gave up would. @defaultValue false */
  end?: boolean;
  /** How long to wait for the server's answer and close. @defaultValue WAIT_MS */
  timeoutMs?: number;
}

/**
 * Connects a plain TCP socket, writes `bytes`, and collects the server's answer until
 * it closes the connection or `timeoutMs` passes (then the socket is destroyed).
 */
export function rawExchange(port: number, bytes: Buffer | readonly number[], opts: RawOptions = {}): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let settled = false;
    const settle = (closed: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ data: Buffer.concat(chunks), closed });
    };
    const timer = setTimeout(() => settle(false), opts.timeoutMs ?? WAIT_MS);
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('end', () => settle(true));
    socket.on('close', () => settle(true));
    socket.on('error', () => settle(true));
    socket.once('connect', () => {
      socket.write(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes));
      if (opts.end) socket.end();
    });
  });
}
