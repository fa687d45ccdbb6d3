import { mkdir, open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

/** The next run of lines that goes into one file with one write call. */
export interface Segment {
  /** Rotate the current file before writing this run. */
  rotateFirst: boolean;
  /** Index after the last line of the run. */
  end: number;
}

/**
 * Plans the run of encoded lines starting at `from` that fits in the current file of
 * `currentSize` bytes without passing `maxBytes`; `ends[i]` is the byte offset just
 * past line i. A line never straddles two files: a line that does not fit rotates
 * first, and a line larger than `maxBytes` goes whole into a fresh file on its own.
 */
export function planSegment(ends: readonly number[], from: number, currentSize: number, maxBytes: number): Segment {
  const start = from === 0 ? 0 : (ends[from - 1] as number);
  const first = (ends[from] as number) - start;
  const rotateFirst = currentSize > 0 && currentSize + first > maxBytes;
  // The bytes this file may still take, counted from the start of the run.
  const room = maxBytes - (rotateFirst ? 0 : currentSize);
  let end = from + 1;
  while (end < ends.length && (ends[end] as number) - start <= room) end += 1;
  return { rotateFirst, end };
}

/**
 * Shifts `path` → `path.1`, `path.1` → `path.2` … keeping `keepFiles` rotated files;
 * rename overwrites, so the oldest (`path.<keepFiles>`) is replaced and thereby deleted.
 * With `keepFiles` 0 the current file is deleted. Missing files are skipped: a gap left
 * by an operator must not stop rotation.
 */
async function rotateFiles(path: string, keepFiles: number): Promise<void> {
  if (keepFiles < 1) {
    await ignoreMissing(unlink(path));
    return;
  }
  for (let i = keepFiles - 1; i >= 1; i -= 1) {
    await ignoreMissing(rename(`${path}.${i}`, `${path}.${i + 1}`));
  }
  await ignoreMissing(rename(path, `${path}.1`));
}

async function ignoreMissing(op: Promise<void>): Promise<void> {
  try {
    await op;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/**
 * The current file behind a path: opened for append (mode 0600), its size tracked, and
 * reopened when it was moved or deleted under us. Callers run one operation at a time.
 */
export class RotatingFile {
  private handle: FileHandle | null = null;
  private identity = { dev: 0, ino: 0 };
  private bytes = 0;
  private unsynced = false;
  /** Failed fsyncs: after one, data already written may not be durable. */
  syncFailures = 0;

  constructor(
    private readonly path: string,
    private readonly keepFiles: number,
    /** Receives errors of best-effort steps (sync and close while letting a file go). */
    private readonly onError: (err: unknown) => void,
  ) {}

  get size(): number {
    return this.bytes;
  }

  /** Creates the parent directory (mode 0700) and opens the file unless it is open. */
  async create(): Promise<void> {
    if (this.handle) return;
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    await this.reopen();
  }

  /** Keeps the open file unless it left the path (operator, logrotate); then opens the path again. */
  async ensureOpen(): Promise<void> {
    if (this.handle && (await this.stillAtPath())) return;
    await this.release();
    await this.reopen();
  }

  /** Appends `data` (whole lines) to the open file; on failure cuts the file back so no torn line stays. */
  async append(data: Buffer): Promise<void> {
    const handle = this.handle;
    if (!handle) throw new Error(`${this.path} is not open`);
    try {
      for (let offset = 0; offset < data.length; ) offset += (await handle.write(data, offset)).bytesWritten;
    } catch (err) {
      await handle.truncate(this.bytes).catch(() => undefined);
      throw err;
    }
    this.bytes += data.length;
    this.unsynced = true;
  }

  async rotate(): Promise<void> {
    await this.release();
    await rotateFiles(this.path, this.keepFiles);
    await this.reopen();
  }

  /** fsyncs the open file if it has unsynced writes; rejects when the fsync fails. */
  async sync(): Promise<void> {
    if (this.handle) await this.syncHandle(this.handle);
  }

  /** Syncs (so a rotated or abandoned file is durable too) and closes the file; never rejects. */
  async release(): Promise<void> {
    const handle = this.handle;
    if (!handle) return;
    this.handle = null;
    await this.syncHandle(handle).catch(this.onError);
    await handle.close().catch(this.onError);
  }

  private async syncHandle(handle: FileHandle): Promise<void> {
    if (!this.unsynced) return;
    this.unsynced = false;
    try {
      await handle.datasync();
    } catch (err) {
      this.syncFailures += 1;
      throw err;
    }
  }

  private async stillAtPath(): Promise<boolean> {
    try {
      const current = await stat(this.path);
      return current.ino === this.identity.ino && current.dev === this.identity.dev;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }

  private async reopen(): Promise<void> {
    this.handle = await open(this.path, 'a', 0o600);
    const opened = await this.handle.stat();
    this.bytes = opened.size;
    this.identity = { dev: opened.dev, ino: opened.ino };
  }
}
