import net from 'node:net';
import { WAIT_MS } from './far-bound.js';

export interface RawExchange {
  /** Everything the server sent before it closed or the wait ended. */
  data: Buffer;
  /** Whether the server closed (FIN or reset) within the wait, after it had accepted the connection. */
  closed: boolean;
}

export interface RawOptions {
  /** Half-close our side after writing, as a client that gave up would. @defaultValue false */
  end?: boolean;
  /** How long to wait for the server's answer and close, from the connect. @defaultValue WAIT_MS */
  timeoutMs?: number;
  /** Stay silent this long after connecting before writing, as a slow client would. @defaultValue 0 */
  delayMs?: number;
}

/** The connection was never accepted (refused, unreachable): nothing was exchanged. */
export class RawConnectError extends Error {
  override readonly name = 'RawConnectError';
  readonly code = 'SPEC_RAW_CONNECT_FAILED';
}

/**
 * Connects a plain TCP socket, writes `bytes`, and collects the server's answer until
 * it closes the connection or `timeoutMs` passes (then the socket is destroyed).
 * Rejects with RawConnectError when the connect itself fails: a refused port must not
 * read as a server that accepted and then closed.
 */
export function rawExchange(port: number, bytes: Buffer | readonly number[], opts: RawOptions = {}): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let connected = false;
    let settled = false;
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      outcome();
    };
    const answered = (closed: boolean): void => settle(() => resolve({ data: Buffer.concat(chunks), closed }));
    const timer = setTimeout(() => answered(false), opts.timeoutMs ?? WAIT_MS);
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('end', () => answered(true));
    socket.on('close', () => answered(true));
    socket.on('error', (err) => {
      if (connected) answered(true);
      else settle(() => reject(new RawConnectError(`cannot connect to 127.0.0.1:${port}: ${err.message}`, { cause: err })));
    });
    const send = (): void => {
      if (settled) return;
      socket.write(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes));
      if (opts.end) socket.end();
    };
    socket.once('connect', () => {
      connected = true;
      if (opts.delayMs) setTimeout(send, opts.delayMs);
      else send();
    });
  });
}

/**
 * Like a client that reads the node's refusal but never closes its side: writes
 * `bytes`, takes the answer up to the node's FIN, keeps the connection half open for
 * `holdMs`, then writes twice more. True when the node had dropped the connection by
 * then (the writes meet a reset), false when it still held it.
 */
export function droppedWhileHeld(port: number, bytes: readonly number[], holdMs: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port, allowHalfOpen: true });
    const timers: NodeJS.Timeout[] = [];
    const done = (dropped: boolean): void => {
      timers.forEach(clearTimeout);
      socket.destroy();
      resolve(dropped);
    };
    socket.on('error', () => done(true));
    socket.once('connect', () => socket.write(Buffer.from(bytes)));
    socket.resume();
    socket.once('end', () => {
      timers.push(setTimeout(() => socket.write('x'), holdMs));
      timers.push(setTimeout(() => socket.write('y'), holdMs + 300));
      timers.push(setTimeout(() => done(false), holdMs + 1000));
    });
    timers.push(setTimeout(() => reject(new Error('the node sent no FIN')), WAIT_MS));
  });
}
