import type { Socket } from 'node:net';

const EMPTY: Buffer = Buffer.alloc(0);

/**
 * Reads a handshake's fields in exact byte counts from a socket. `take(n)` resolves
 * with the next n bytes, at once when they are buffered already; the socket's end,
 * close or error rejects the waiting take and every later one with what `broken`
 * makes of it. `release()` detaches and leaves the socket paused, handing back the
 * bytes read past the last take: the start of what follows the handshake.
 */
export class ExactReader {
  private buffered: Buffer = EMPTY;
  private waiting: { n: number; resolve: (bytes: Buffer) => void; reject: (err: Error) => void } | null = null;
  private failure: Error | null = null;

  constructor(
    private readonly socket: Socket,
    private readonly broken: (err?: NodeJS.ErrnoException) => Error,
  ) {
    socket.on('data', this.onData).once('end', this.onEnd).once('close', this.onEnd).once('error', this.onError);
    // A socket paused by an earlier reader (the hop before) does not flow by itself.
    socket.resume();
  }

  take(n: number): Promise<Buffer> {
    if (this.buffered.length >= n) return Promise.resolve(this.cut(n));
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting = { n, resolve, reject };
    });
  }

  /** Ends the reading: a take waiting is rejected with `err`, and so is every later one. */
  fail(err: Error): void {
    this.failure ??= err;
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.reject(this.failure);
  }

  release(): Buffer {
    this.socket.off('data', this.onData).off('end', this.onEnd).off('close', this.onEnd).off('error', this.onError);
    this.socket.pause();
    const rest = this.buffered;
    this.buffered = EMPTY;
    return rest;
  }

  private cut(n: number): Buffer {
    const out = this.buffered.subarray(0, n);
    this.buffered = this.buffered.subarray(n);
    return out;
  }

  private readonly onData = (chunk: Buffer): void => {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const waiting = this.waiting;
    if (!waiting || this.buffered.length < waiting.n) return;
    this.waiting = null;
    waiting.resolve(this.cut(waiting.n));
  };

  private readonly onEnd = (): void => this.fail(this.broken());

  private readonly onError = (err: NodeJS.ErrnoException): void => this.fail(this.broken(err));
}
