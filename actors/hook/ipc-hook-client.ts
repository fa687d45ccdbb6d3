import { createConnection, type Socket } from 'node:net';
import { LineReader } from '../net/line-reader.js';
import { ALLOW, hookRequestLine, parseHookAnswer, type HookQuery, type HookVerdict } from './hook-messages.js';

export interface IpcHookOptions {
  /** The hook's Unix socket. */
  path: string;
  /** Bound on one question, connecting included, in milliseconds. */
  timeoutMs: number;
  /** The hook could not be asked (refused, silent, hung up). Called once per outage. */
  onUnreachable(message: string): void;
  /** The hook answered something that is not an answer; that flow is allowed. */
  onBadAnswer(message: string): void;
  /** During an outage, flows are allowed without asking until this long after the last failure. @defaultValue 1000 */
  retryMs?: number;
  now?: () => number;
}

interface Pending {
  resolve(verdict: HookVerdict): void;
  timer: NodeJS.Timeout;
  socket: Socket | null;
}

/** An answer line longer than this ends the connection: that is no hook speaking. */
const MAX_LINE = 65_536;

/**
 * Asks an external process about each new flow over one persistent Unix socket
 * connection: one JSON line per question with an `id`, answered by one JSON line
 * with the same `id`, in any order. The connection is made on the first question and
 * again after it broke. Every failure allows the flow (fail-open); the first one of
 * an outage is reported, and the next report needs an answer in between.
 */
export class IpcHookClient {
  private socket: Socket | null = null;
  private connecting: Promise<Socket> | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private down = false;
  private quietUntil = 0;
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly opts: IpcHookOptions) {
    this.now = opts.now ?? Date.now;
  }

  ask(query: HookQuery): Promise<HookVerdict> {
    if (this.closed || (this.down && this.now() < this.quietUntil)) return Promise.resolve(ALLOW);
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.fail(id, `the hook did not answer within ${this.opts.timeoutMs} ms`), this.opts.timeoutMs);
      this.pending.set(id, { resolve, timer, socket: null });
      this.connection().then(
        (socket) => {
          const p = this.pending.get(id);
          if (!p) return;
          p.socket = socket;
          socket.write(hookRequestLine(id, query));
        },
        (err: Error) => this.fail(id, `cannot connect to the hook at ${this.opts.path}: ${err.message}`),
      );
    });
  }

  /** Ends the connection; questions still open are answered allow, without a report. */
  close(): void {
    this.closed = true;
    this.socket?.destroy();
    for (const id of [...this.pending.keys()]) this.settle(id, ALLOW);
  }

  private connection(): Promise<Socket> {
    if (this.socket) return Promise.resolve(this.socket);
    this.connecting ??= new Promise<Socket>((resolve, reject) => {
      const socket = createConnection(this.opts.path);
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        this.attach(socket);
        resolve(socket);
      });
    }).finally(() => (this.connecting = null));
    return this.connecting;
  }

  private attach(socket: Socket): void {
    this.socket = socket;
    // An idle connection to the hook must not keep the node running.
    socket.unref();
    const reader = new LineReader(MAX_LINE);
    socket.on('data', (chunk: Buffer) => {
      const { lines, overflow } = reader.push(chunk);
      for (const line of lines) if (line.trim() !== '') this.answer(line);
      if (overflow) socket.destroy(new Error(`an answer line is longer than ${MAX_LINE} bytes`));
    });
    socket.on('error', () => undefined);
    socket.once('close', () => {
      if (this.socket === socket) this.socket = null;
      for (const [id, p] of this.pending) if (p.socket === socket) this.fail(id, 'the hook closed the connection before answering');
    });
  }

  private answer(line: string): void {
    const answer = parseHookAnswer(line);
    if (answer.id === null && 'error' in answer) {
      // Bad JSON names no question: with only one waiting it is that one's, a bad answer
      // (not an outage); with several it cannot be matched, and they time out.
      const [only, ...more] = this.pending.keys();
      if (only === undefined || more.length > 0) return this.opts.onBadAnswer(`the hook sent a line that answers no question: ${answer.error}`);
      return this.badAnswer(only, answer.error);
    }
    // A late answer (after its timeout) or a stray line has no question waiting.
    if (answer.id === null || !this.pending.has(answer.id)) return;
    this.down = false;
    if ('error' in answer) return this.badAnswer(answer.id, answer.error);
    this.settle(answer.id, answer.verdict);
  }

  private badAnswer(id: number, error: string): void {
    this.down = false;
    this.opts.onBadAnswer(`the hook's answer to question ${id} is not valid: ${error}`);
    this.settle(id, ALLOW);
  }

  private fail(id: number, message: string): void {
    if (!this.settle(id, ALLOW) || this.closed) return;
    this.quietUntil = this.now() + (this.opts.retryMs ?? 1000);
    if (this.down) return;
    this.down = true;
    this.opts.onUnreachable(message);
  }

  private settle(id: number, verdict: HookVerdict): boolean {
    const p = this.pending.get(id);
    if (!p) return false;
    this.pending.delete(id);
    clearTimeout(p.timer);
    p.resolve(verdict);
    return true;
  }
}
