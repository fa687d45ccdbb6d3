import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { asyncScheduler, type SchedulerLike, type Subscription } from 'rxjs';
import { LineReader } from '../actors/net/line-reader.js';
import { coalesce } from '../streams/coalesce.js';
import type { PublishedEvent } from '../streams/published-event.js';
import { typeFilter, wantsFlowEvents } from '../streams/type-filter.js';
import { answerRequest } from './ipc-answer.js';
import { type IpcErrorReply, type IpcReply, type IpcRequest, replyJson, withId } from './ipc-messages.js';
import type { IpcControl } from './ipc-ops.js';
import { parseRequestLine } from './ipc-request.js';

export interface IpcConnectionOptions {
  ops: IpcControl;
  log: Logger;
  /** Largest request line in bytes; a longer one ends the connection. */
  maxLineBytes: number;
  /** Bytes of replies and events a client may leave unread before it is cut off. */
  maxBacklogBytes: number;
  /** Fan-out tick in ms: the events of one tick go out in one write. */
  tickMs: number;
  /** Ms a connection being ended may take to take its last line before it is destroyed. */
  closeGraceMs: number;
  /** Ms a request line may take from its first byte to its newline. */
  lineTimeoutMs: number;
  scheduler?: SchedulerLike;
}

/** Why a connection ended abnormally, as ipc.disconnected's `error`; null for a normal end. */
export interface IpcClosed {
  error: string | null;
}

/**
 * One client of the IPC channel over any Duplex: reads request lines, answers each
 * with one reply line in request order, and streams a subscription's envelopes,
 * coalesced per tick. Whatever the client does, what it may hold in memory is
 * bounded: reading pauses while an answer is pending, and unread output is capped.
 */
export class IpcConnection {
  readonly closed: Promise<IpcClosed>;
  private readonly reader: LineReader;
  private subscription: Subscription | null = null;
  /** Request lines read and not answered yet (at most one chunk's worth). */
  private readonly waiting: string[] = [];
  private busy = false;
  private overflowed = false;
  private peerEnded = false;
  private ending = false;
  private abnormal: string | null = null;
  private graceTimer: NodeJS.Timeout | undefined;
  /** Runs while a request line has begun and not ended. */
  private lineTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly socket: Duplex,
    private readonly opts: IpcConnectionOptions,
  ) {
    this.reader = new LineReader(opts.maxLineBytes);
    this.closed = new Promise((resolve) => {
      socket.once('close', () => {
        this.subscription?.unsubscribe();
        clearTimeout(this.graceTimer);
        clearTimeout(this.lineTimer);
        resolve({ error: this.abnormal });
      });
    });
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('end', () => {
      this.peerEnded = true;
      this.drain();
    });
    socket.on('error', (err: Error) => {
      this.abnormal ??= err.message;
    });
  }

  /** Ends the connection (node shutdown); a client that does not take it is destroyed. */
  close(): void {
    this.finish(null);
  }

  private onData(chunk: Buffer): void {
    if (this.ending) return;
    const { lines, overflow } = this.reader.push(chunk);
    for (const line of lines) this.waiting.push(line);
    this.overflowed ||= overflow;
    this.watchLine(this.reader.midLine);
    this.drain();
  }

  /**
   * Bounds the time a begun line may stay unfinished: the reader holds up to
   * maxLineBytes of it, so a client that never sends the newline would hold that
   * memory for as long as it stays connected. Counted from the line's first byte,
   * so trickling bytes does not extend it.
   */
  private watchLine(begun: boolean): void {
    if (!begun) {
      clearTimeout(this.lineTimer);
      this.lineTimer = undefined;
    } else {
      this.lineTimer ??= setTimeout(() => this.lineTimedOut(), this.opts.lineTimeoutMs);
    }
  }

  private lineTimedOut(): void {
    this.lineTimer = undefined;
    // While an answer is pending this side is not reading, so the line cannot end: not the client's delay.
    if (this.busy) return this.watchLine(true);
    const message = `a request line must end with a newline within ${this.opts.lineTimeoutMs} ms of its first byte`;
    this.finish('line_timeout', { type: 'error', code: 'LINE_TIMEOUT', message });
  }

  /** Answers the waiting lines in order; ends the connection once they are answered if it must. */
  private drain(): void {
    while (!this.busy && !this.ending) {
      const line = this.waiting.shift();
      if (line === undefined) break;
      if (line.trim() !== '') this.handle(line);
    }
    if (this.busy || this.ending || this.waiting.length > 0) return;
    if (this.overflowed) {
      const message = `a request line may hold at most ${this.opts.maxLineBytes} bytes`;
      this.finish('line_too_long', { type: 'error', code: 'BODY_TOO_LARGE', message });
    } else if (this.peerEnded) this.finish(null);
  }

  private handle(line: string): void {
    const parsed = parseRequestLine(line);
    if (!parsed.ok) return this.reply(parsed.error);
    const request = parsed.request;
    if (request.kind === 'subscribe') return this.subscribe(request);
    const answer = answerRequest(this.opts.ops, request, this.opts.log);
    if (!(answer instanceof Promise)) return this.reply(answer);
    this.hold();
    void answer.then((reply) => {
      this.reply(reply);
      this.release();
    });
  }

  /** Stops answering (and reading) until release(): something must be written first. */
  private hold(): void {
    this.busy = true;
    this.socket.pause();
  }

  private release(): void {
    if (!this.busy) return;
    this.busy = false;
    if (this.ending) return;
    this.socket.resume();
    this.drain();
  }

  /**
   * ACK, then the flow.snapshot baseline and live envelopes; no replay. The baseline
   * comes turns of the event loop later (it is written a slice at a time, then
   * coalesced), and it must be the line after the ACK: requests that came with the
   * subscribe wait for it, as behind an operation that has not answered yet.
   */
  /** True while the connection streams a subscription's events. */
  get subscribed(): boolean {
    return this.subscription !== null && !this.ending;
  }

  private subscribe(request: Extract<IpcRequest, { kind: 'subscribe' }>): void {
    if (this.subscription) {
      return this.reply(withId({ type: 'error', code: 'BAD_REQUEST', message: 'this connection is already subscribed' }, request.id));
    }
    this.reply(withId({ type: 'ack', subscribed: request.events ?? ['*'] }, request.id));
    if (this.ending) return;
    if (wantsFlowEvents(typeFilter(request.events))) this.hold();
    this.subscription = this.opts.ops
      .subscribe({ types: request.events })
      .events$.pipe(coalesce<PublishedEvent>(this.opts.tickMs, this.opts.scheduler ?? asyncScheduler))
      .subscribe({
        next: (batch) => {
          this.send(batch.map((e) => `${e.json}\n`).join(''));
          this.release();
        },
        // The bus completes when the engine stops: the stream has ended.
        complete: () => this.finish(null),
        error: (err: unknown) => {
          this.opts.log.error({ err }, 'IPC event stream failed');
          this.finish('stream_error');
        },
      });
  }

  private reply(reply: IpcReply): void {
    this.send(`${replyJson(reply)}\n`);
  }

  /**
   * Writes unless the client already leaves too much unread. A write onto an empty
   * backlog always goes out, so one large snapshot does not count as slowness.
   */
  private send(text: string): void {
    if (this.ending) return;
    const backlog = this.socket.writableLength;
    if (backlog > 0 && backlog + text.length > this.opts.maxBacklogBytes) {
      const message = `the client left more than ${this.opts.maxBacklogBytes} bytes unread; reconnect to subscribe again`;
      return this.finish('slow_consumer', { type: 'error', code: 'SLOW_CONSUMER', message });
    }
    this.socket.write(text);
  }

  private finish(abnormal: string | null, lastLine?: IpcErrorReply): void {
    if (this.ending) return;
    this.ending = true;
    clearTimeout(this.lineTimer);
    if (abnormal !== null) this.abnormal ??= abnormal;
    this.subscription?.unsubscribe();
    this.socket.end(lastLine === undefined ? undefined : `${JSON.stringify(lastLine)}\n`);
    this.graceTimer = setTimeout(() => this.socket.destroy(), this.opts.closeGraceMs);
  }
}
