import net from 'node:net';
import type { Duplex } from 'node:stream';
import { WAIT_MS } from '../../support/far-bound.js';

export type Line = Record<string, unknown>;

/**
 * The test side of the IPC channel over any Duplex (a real Unix socket or an
 * in-memory pair): writes lines and hands out the parsed lines it receives in order.
 */
export class LineClient {
  private buffered = '';
  private readonly queue: Line[] = [];
  private waiter: (() => void) | null = null;
  private isEnded = false;
  /** Resolves when the server ended or closed the connection. */
  readonly ended: Promise<void>;

  constructor(readonly stream: Duplex) {
    stream.setEncoding('utf8');
    stream.on('data', (text: string) => {
      const parts = (this.buffered + text).split('\n');
      this.buffered = parts.pop() ?? '';
      for (const part of parts) this.queue.push(JSON.parse(part) as Line);
      this.wake();
    });
    stream.on('error', () => undefined);
    this.ended = new Promise((resolve) => {
      const done = (): void => {
        this.isEnded = true;
        this.wake();
        resolve();
      };
      stream.once('end', done);
      stream.once('close', done);
    });
  }

  static connect(socketPath: string): Promise<LineClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(socketPath);
      socket.once('connect', () => resolve(new LineClient(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends an object as one JSON line, or a string as it is (add the newline yourself). */
  send(message: object | string): void {
    this.stream.write(typeof message === 'string' ? message : `${JSON.stringify(message)}\n`);
  }

  /** The next line; rejects after `timeoutMs` or when the connection ends first. */
  async next(timeoutMs = WAIT_MS): Promise<Line> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length === 0) {
      if (this.isEnded) throw new Error('the connection ended before the next line');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no line within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return this.queue.shift()!;
  }

  /** Lines until one satisfies `match` (returned); the skipped ones are dropped. */
  async nextMatching(match: (line: Line) => boolean, timeoutMs = WAIT_MS): Promise<Line> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = await this.next(Math.max(1, deadline - Date.now()));
      if (match(line)) return line;
    }
  }

  /** Lines received and not yet taken. */
  get pending(): readonly Line[] {
    return this.queue;
  }

  close(): void {
    this.stream.destroy();
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }
}
