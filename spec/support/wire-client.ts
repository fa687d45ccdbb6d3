import net from 'node:net';
import { WAIT_MS } from './far-bound.js';
import { waitFor } from './wait-for.js';

/** The bytes one step of a WireClient moved on its connection. */
export interface WireStep {
  sent: number;
  received: number;
}

/**
 * A raw HTTP/1.1 client connection to a proxy: it writes messages exactly as given
 * (pipelined, or one after the answer to the other) and tells the bytes each step
 * moved, for checking how a proxy splits one connection between its flows.
 */
export class WireClient {
  private data = Buffer.alloc(0);
  /** End of the last answer taken. */
  private taken = 0;
  private sentBefore = 0;
  private wake: () => void = () => undefined;
  /** Resolves when the connection closed, from either side. */
  readonly closed: Promise<void>;

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.data = Buffer.concat([this.data, chunk]);
      this.wake();
    });
    this.closed = new Promise((resolve, reject) => {
      socket.on('error', reject);
      socket.on('close', () => resolve());
    });
    // A reset nobody waits for is told by the step that meets it (until, last, leave).
    this.closed.catch(() => undefined);
  }

  static open(proxy: string): Promise<WireClient> {
    const colon = proxy.lastIndexOf(':');
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: proxy.slice(0, colon), port: Number(proxy.slice(colon + 1)) }, () => resolve(new WireClient(socket)));
      socket.once('error', reject);
    });
  }

  /** Writes `message` and waits for one answer: its head and body (a CONNECT's 200 has none). */
  async exchange(message: string): Promise<WireStep> {
    this.socket.write(message);
    for (;;) {
      const end = answerEnd(this.data, this.taken);
      if (end !== null) return this.step(end);
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** Writes `message` and reads until the proxy closes the connection. */
  async last(message: string): Promise<WireStep> {
    this.socket.write(message);
    await this.closed;
    return this.step(this.data.length);
  }

  /** Everything the proxy sent on this connection so far, as text. */
  get text(): string {
    return this.data.toString('latin1');
  }

  /** The length of each whole answer the proxy sent on this connection so far, in order. */
  answerLengths(): number[] {
    const lengths: number[] = [];
    for (let at = 0, end = answerEnd(this.data, 0); end !== null; at = end, end = answerEnd(this.data, at)) lengths.push(end - at);
    return lengths;
  }

  /** Writes `message` (requests to pipeline, say) without waiting for anything. */
  send(message: string): void {
    this.socket.write(message);
  }

  /** Waits until what came since the last step holds `text`; fails once the connection has closed without it. */
  async until(text: string): Promise<void> {
    const what = `an answer holding ${JSON.stringify(text)}`;
    await waitFor(() => {
      if (this.data.includes(text, this.taken)) return true;
      if (this.socket.destroyed) throw new Error(`the connection closed before ${what}`);
      return false;
    }, WAIT_MS, what);
  }

  /** Stops reading: what the proxy sends from now on backs up in the sockets. */
  pause(): void {
    this.socket.pause();
  }

  /**
   * Leaves the connection with a FIN, or resets it, and waits for it to close: what was
   * sent and received since the last step, answers cut short included.
   */
  async leave(how: 'fin' | 'rst'): Promise<WireStep> {
    if (how === 'fin') this.socket.end();
    else this.socket.resetAndDestroy();
    await this.closed;
    return this.step(this.data.length);
  }

  private step(end: number): WireStep {
    const step = { sent: this.socket.bytesWritten - this.sentBefore, received: end - this.taken };
    this.taken = end;
    this.sentBefore = this.socket.bytesWritten;
    return step;
  }
}

/** An absolute-form GET as a proxy client sends it; `close` asks the proxy to close after answering. */
export function proxyGet(url: string, opts: { close?: boolean; auth?: string } = {}): string {
  const auth = opts.auth ? `Proxy-Authorization: Basic ${opts.auth}\r\n` : '';
  return `GET ${url} HTTP/1.1\r\nHost: ${new URL(url).host}\r\n${auth}${opts.close ? 'Connection: close\r\n' : ''}\r\n`;
}

/**
 * Where the answer starting at `from` ends, once it is all in `data`: a chunked body ends
 * with its last chunk, any other body Content-Length bytes after the head.
 */
function answerEnd(data: Buffer, from: number): number | null {
  const headEnd = data.indexOf('\r\n\r\n', from);
  if (headEnd < 0) return null;
  const head = data.toString('latin1', from, headEnd);
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
    const last = data.indexOf('\r\n0\r\n\r\n', headEnd);
    return last < 0 ? null : last + 7;
  }
  const end = headEnd + 4 + Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
  return data.length >= end ? end : null;
}
