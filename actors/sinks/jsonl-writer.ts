import { planSegment, RotatingFile } from './jsonl-rotation.js';
import { LineEncoder, type Line } from './line-encoder.js';
import { WeirError } from '../errors/weir-error.js';

export interface JsonlWriterOptions {
  /** File to append to, e.g. `<state_dir>/events.jsonl`; open() creates its parent (mode 0700). */
  path: string;
  /** Rotate before a line that would take the current file past this many bytes. */
  maxBytes: number;
  /** Rotated files kept: `path.1` (newest) … `path.<keepFiles>`; older ones are deleted. */
  keepFiles: number;
  /** At most one fsync per this many milliseconds while writes are unsynced; flush() syncs at once. */
  fsyncIntervalMs: number;
  /** Lines waiting unwritten beyond this many are dropped and counted. @defaultValue 100000 */
  maxPendingLines?: number;
  /**
   * Milliseconds that appended lines wait so they are written together: one stat and
   * one write per window instead of per event-loop turn. @defaultValue 20
   */
  batchMs?: number;
}

export interface JsonlWriterStats {
  linesWritten: number;
  bytesWritten: number;
  rotations: number;
  /** Lines lost: over maxPendingLines, appended after close(), or still unwritten when close() ended. */
  dropped: number;
  /** Lines accepted and not yet written, including those kept for a retry after an error. */
  pending: number;
  lastError: { message: string; at_unix_ms: number } | null;
}

export type JsonlWriterErrorCode = 'JSONL_OPEN_FAILED' | 'JSONL_FLUSH_FAILED';

export class JsonlWriterError extends WeirError<JsonlWriterErrorCode> {}

const DEFAULT_MAX_PENDING_LINES = 100_000;

/**
 * Append-only JSONL file with size rotation and batched fsync. append() only queues;
 * one operation chain does all file work, so lines land in append order. File errors
 * never escape: they go to stats.lastError, unwritten lines stay queued, and the next
 * batch reopens the file.
 */
export class JsonlWriter {
  private readonly maxPending: number;
  private readonly file: RotatingFile;
  private readonly encoder = new LineEncoder();
  private queue: Line[] = [];
  private inFlight = 0;
  private accepted = 0;
  /** Serialises every file operation; it never rejects. */
  private chain: Promise<void> = Promise.resolve();
  private drainQueued = false;
  private syncTimer: NodeJS.Timeout | null = null;
  private opened = false;
  private closing: Promise<void> | null = null;
  private readonly counters = { linesWritten: 0, bytesWritten: 0, rotations: 0, dropped: 0 };
  private lastError: JsonlWriterStats['lastError'] = null;
  /** When lines were last written (the connector state's last_delivered_at_unix_ms). */
  lastWrittenAt: number | null = null;

  constructor(private readonly opts: JsonlWriterOptions) {
    this.maxPending = opts.maxPendingLines ?? DEFAULT_MAX_PENDING_LINES;
    this.file = new RotatingFile(opts.path, opts.keepFiles, (err) => this.recordError(err));
  }

  get stats(): JsonlWriterStats {
    return { ...this.counters, pending: this.queue.length + this.inFlight, lastError: this.lastError };
  }

  /**
   * Creates the parent directory and opens the file for append, learning its size. On
   * failure it rejects, yet queued lines are kept and later batches retry the open.
   */
  async open(): Promise<void> {
    if (this.closing) return;
    this.opened = true;
    try {
      await this.enqueue(() => this.file.create());
    } catch (err) {
      throw new JsonlWriterError('JSONL_OPEN_FAILED', `cannot open ${this.opts.path}: ${messageOf(err)}`, { cause: err });
    } finally {
      this.scheduleDrain();
    }
  }

  /** `line` is one JSON text without a newline (JSON.stringify never emits a raw one), whole or in parts. */
  append(line: Line): void {
    if (this.closing || this.queue.length + this.inFlight >= this.maxPending) {
      this.counters.dropped += 1;
      return;
    }
    this.queue.push(line);
    this.accepted += 1;
    this.scheduleDrain();
  }

  /**
   * Resolves once every line appended before the call is written and fsynced. Rejects
   * with JSONL_FLUSH_FAILED if one is still unwritten (it stays queued for a retry) or
   * an fsync failed meanwhile. Concurrent calls are fine: each waits for its own lines.
   */
  async flush(): Promise<void> {
    const target = this.accepted;
    const syncFailuresBefore = this.file.syncFailures;
    await this.enqueue(() => this.drainAndSync());
    const unwritten = Math.max(target - this.counters.linesWritten, 0);
    if (unwritten > 0 || this.file.syncFailures > syncFailuresBefore) {
      const reason = this.lastError?.message ?? 'unknown error';
      throw new JsonlWriterError('JSONL_FLUSH_FAILED', `flush of ${this.opts.path} failed, ${unwritten} lines unwritten: ${reason}`);
    }
  }

  /** Writes and syncs what is queued, then closes the file. Never rejects: lines it could not write count as dropped. */
  close(): Promise<void> {
    if (!this.closing) {
      if (this.syncTimer) clearTimeout(this.syncTimer);
      this.syncTimer = null;
      const closing = this.enqueue(async () => {
        await this.drainAndSync();
        this.counters.dropped += this.queue.length;
        this.queue = [];
        await this.file.release();
      });
      this.closing = closing.catch(() => undefined);
    }
    return this.closing;
  }

  private enqueue<T>(op: () => Promise<T>): Promise<T> {
    const result = this.chain.then(op);
    this.chain = result.then(
      () => undefined,
      (err: unknown) => this.recordError(err),
    );
    return result;
  }

  private scheduleDrain(): void {
    if (this.drainQueued || this.queue.length === 0) return;
    this.drainQueued = true;
    setTimeout(() => {
      void this.enqueue(async () => {
        this.drainQueued = false;
        await this.drain();
      });
    }, this.opts.batchMs ?? 20).unref();
  }

  private async drainAndSync(): Promise<void> {
    await this.drain();
    try {
      await this.file.sync();
    } catch (err) {
      this.recordError(err);
    }
  }

  private async drain(): Promise<void> {
    if (!this.opened || this.queue.length === 0) return;
    const lines = this.queue;
    this.queue = [];
    let next = 0;
    this.inFlight = lines.length;
    try {
      await this.file.ensureOpen();
      while (next < lines.length) {
        const { data, ends } = this.encoder.encode(lines, next);
        for (let i = 0; i < ends.length; ) {
          const segment = planSegment(ends, i, this.file.size, this.opts.maxBytes);
          if (segment.rotateFirst) await this.rotate();
          await this.write(data.subarray(i === 0 ? 0 : ends[i - 1], ends[segment.end - 1]), segment.end - i);
          next += segment.end - i;
          i = segment.end;
          this.inFlight = lines.length - next;
        }
      }
    } catch (err) {
      this.recordError(err);
      this.queue = lines.slice(next).concat(this.queue);
      this.inFlight = 0;
      await this.file.release();
    }
  }

  private async rotate(): Promise<void> {
    await this.file.rotate();
    this.counters.rotations += 1;
  }

  private async write(data: Buffer, lineCount: number): Promise<void> {
    await this.file.append(data);
    this.lastWrittenAt = Date.now();
    this.counters.linesWritten += lineCount;
    this.counters.bytesWritten += data.length;
    this.scheduleSync();
  }

  private scheduleSync(): void {
    if (this.syncTimer || this.closing) return;
    this.syncTimer = setTimeout(() => {
      this.syncTimer = null;
      void this.enqueue(() => this.file.sync());
    }, this.opts.fsyncIntervalMs);
    // Written lines already sit in the page cache; a pending fsync must not keep the process alive.
    this.syncTimer.unref();
  }

  private recordError(err: unknown): void {
    this.lastError = { message: messageOf(err), at_unix_ms: Date.now() };
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
