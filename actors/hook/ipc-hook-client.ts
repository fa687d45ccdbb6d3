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

/** The connection to the hook, with what was heard on it: the sign that the hook behind it lives. */
interface Connection {
  socket: Socket;
  /** Lines received on it so far, answers or not. */
  heard: number;
  /**
   * A question on it timed out with nothing heard since that question was written. It
   * is given up at the next question unless the hook speaks on it first: a slow hook's
   * late answers keep it, a hung one (or one left dangling by a hook that restarted) is
   * replaced instead of being asked again forever.
   */
  suspect: boolean;
}

interface Pending {
  resolve(verdict: HookVerdict): void;
  timer: NodeJS.Timeout;
  /** Where the question was written, and how many lines had been heard there by then. */
  sent: { conn: Connection; heard: number } | null;
}

/** An answer line longer than this ends the connection: that is no hook speaking. */
const MAX_LINE = 65_536;

/**
 * Asks an external process about each new flow over one persistent Unix socket
 * connection: one JSON line per question with an `id`, answered by one JSON line
 * with the same `id`, in any order. The connection is made on the first question and
 * again after it broke or went silent. Every failure allows the flow (fail-open); the
 * first one of an outage is reported, and the next report needs an answer in between.
 */
export class IpcHookClient {
  private conn: Connection | null = null;
  private connecting: Promise<Connection> | null = null;
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
      const timer = setTimeout(() => this.timedOut(id), this.opts.timeoutMs);
      this.pending.set(id, { resolve, timer, sent: null });
      this.connection().then(
        (conn) => {
          const p = this.pending.get(id);
          if (!p) return;
          p.sent = { conn, heard: conn.heard };
          conn.socket.write(hookRequestLine(id, query));
        },
        (err: Error) => this.fail(id, `cannot connect to the hook at ${this.opts.path}: ${err.message}`),
      );
    });
  }

  /** Ends the connection; questions still open are answered allow, without a report. */
  close(): void {
    this.closed = true;
    this.conn?.socket.destroy();
    for (const id of [...this.pending.keys()]) this.settle(id, ALLOW);
  }

  private connection(): Promise<Connection> {
    if (this.conn?.suspect) {
      // Closing fails the questions still open on it, as a hang-up by the hook would,
      // within the outage the timeout began: no second report.
      this.conn.socket.destroy();
      this.conn = null;
    }
    if (this.conn) return Promise.resolve(this.conn);
    this.connecting ??= new Promise<Connection>((resolve, reject) => {
      const socket = createConnection(this.opts.path);
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(this.attach(socket));
      });
    }).finally(() => (this.connecting = null));
    return this.connecting;
  }

  private attach(socket: Socket): Connection {
    const conn: Connection = { socket, heard: 0, suspect: false };
    this.conn = conn;
    // An idle connection to the hook must not keep the node running.
    socket.unref();
    const reader = new LineReader(MAX_LINE);
    socket.on('data', (chunk: Buffer) => {
      const { lines, overflow } = reader.push(chunk);
      for (const line of lines) {
        if (line.trim() === '') continue;
        conn.heard++;
        conn.suspect = false;
        this.answer(line);
      }
      if (overflow) socket.destroy(new Error(`an answer line is longer than ${MAX_LINE} bytes`));
    });
    socket.on('error', () => undefined);
    socket.once('close', () => {
      if (this.conn === conn) this.conn = null;
      for (const [id, p] of this.pending) if (p.sent?.conn === conn) this.fail(id, 'the hook closed the connection before answering');
    });
    return conn;
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

  private timedOut(id: number): void {
    const sent = this.pending.get(id)?.sent;
    if (sent && sent.conn.heard === sent.heard) sent.conn.suspect = true;
    this.fail(id, `the hook did not answer within ${this.opts.timeoutMs} ms`);
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
