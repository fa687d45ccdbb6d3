import fs from 'node:fs';
import path from 'node:path';

/** A segment is rolled over once it would grow past this. */
const SEGMENT_BYTES = 4 * 1024 * 1024;

const NAME = /^(\d{10})\.log$/;

const nameOf = (seg: number): string => `${String(seg).padStart(10, '0')}.log`;

/** The segment numbers in `dir`, oldest first; none when it does not exist. */
export async function listSegments(dir: string): Promise<number[]> {
  const names = await fs.promises.readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[];
    throw err;
  });
  return names
    .map((n) => NAME.exec(n)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

export function readSegment(dir: string, seg: number): Promise<Buffer> {
  return fs.promises.readFile(path.join(dir, nameOf(seg)));
}

/**
 * A sink's journal segments, `<dir>/<number>.log`, written with Node's async fs: a
 * refused write (ENOSPC, EIO) rejects, never crashes or blocks the event loop. Opened
 * O_DSYNC, an append resolves once on disk; a failed one is truncated back so no line
 * follows a torn one (if even that fails, the next append starts a new segment).
 */
export class JournalSegments {
  private head: { seg: number; file: fs.promises.FileHandle; size: number } | null = null;
  private rollNext = false;
  /** Sizes of the segments, by number (the head's included). */
  readonly sizes = new Map<number, number>();

  /** @param last the highest segment number already in `dir` (0 when none): writing starts after it. */
  constructor(
    private readonly dir: string,
    private last: number,
  ) {}

  get headSeg(): number | null {
    return this.head?.seg ?? null;
  }

  /** Whether an append of `len` bytes (see append) goes into a new segment. */
  startsNew(len: number, roll: boolean): boolean {
    return !this.head || this.rollNext || (this.head.size > 0 && (roll || this.head.size + len > SEGMENT_BYTES));
  }

  /** Whether an append of `len` bytes is the first of its segment (a new one, or the head while it is empty). */
  opensSegment(len: number, roll: boolean): boolean {
    return this.startsNew(len, roll) || this.head!.size === 0;
  }

  /** Appends whole lines, on disk when it resolves; `roll` starts a new segment before this one is full (so an all-settled one can go). */
  async append(buf: Buffer, roll: boolean): Promise<{ seg: number; off: number }> {
    if (this.startsNew(buf.length, roll)) await this.roll();
    const head = this.head!;
    const off = head.size;
    try {
      // O_DSYNC: each write returns once its data is on disk, one trip to the thread pool instead of a write and an fdatasync.
      for (let done = 0; done < buf.length; ) done += (await head.file.write(buf, done, buf.length - done, off + done)).bytesWritten;
    } catch (err) {
      await head.file.truncate(off).catch(() => (this.rollNext = true));
      throw err;
    }
    head.size = off + buf.length;
    this.sizes.set(head.seg, head.size);
    return { seg: head.seg, off };
  }

  async read(seg: number, off: number, len: number): Promise<Buffer> {
    // A handle of its own: the head's may be closed by a roll meanwhile.
    const file = await fs.promises.open(path.join(this.dir, nameOf(seg)), 'r');
    try {
      const buf = Buffer.allocUnsafe(len);
      const { bytesRead } = await file.read(buf, 0, len, off);
      return buf.subarray(0, bytesRead);
    } finally {
      await file.close();
    }
  }

  /** Deletes an older segment (never the head). */
  async remove(seg: number): Promise<void> {
    this.sizes.delete(seg);
    await fs.promises.rm(path.join(this.dir, nameOf(seg)), { force: true });
  }

  async close(): Promise<void> {
    await this.head?.file.close();
    this.head = null;
  }

  /** Opens the next segment; its name is synced into the directory before anything relies on it. */
  private async roll(): Promise<void> {
    await fs.promises.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const seg = this.last + 1;
    const { O_WRONLY, O_CREAT, O_TRUNC, O_DSYNC } = fs.constants;
    const file = await fs.promises.open(path.join(this.dir, nameOf(seg)), O_WRONLY | O_CREAT | O_TRUNC | O_DSYNC, 0o600);
    try {
      await syncDir(this.dir);
    } catch (err) {
      await file.close();
      throw err;
    }
    this.last = seg;
    this.rollNext = false;
    const previous = this.head;
    this.head = { seg, file, size: 0 };
    this.sizes.set(seg, 0);
    await previous?.file.close();
  }
}

async function syncDir(dir: string): Promise<void> {
  const handle = await fs.promises.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
