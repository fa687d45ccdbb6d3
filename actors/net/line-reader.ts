const NEWLINE = 0x0a;

export interface LineChunk {
  /** The complete lines of this chunk, without their newline (and a trailing CR). */
  lines: string[];
  /** A line grew past the cap; the lines before it are in `lines`, nothing after it is read. */
  overflow: boolean;
}

/**
 * Splits a byte stream into newline-delimited lines, holding at most `maxLineBytes`
 * of a line that has not ended yet: a peer cannot make it buffer without bound.
 */
export class LineReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private overflowed = false;

  /** @param maxLineBytes Largest line in bytes, newline excluded. */
  constructor(private readonly maxLineBytes: number) {}

  push(chunk: Buffer): LineChunk {
    const lines: string[] = [];
    if (this.overflowed) return { lines, overflow: true };
    let start = 0;
    for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
      if (this.pendingBytes + nl - start > this.maxLineBytes) return this.overflow(lines);
      lines.push(this.take(chunk.subarray(start, nl)));
      start = nl + 1;
    }
    if (start < chunk.length) {
      this.pendingBytes += chunk.length - start;
      if (this.pendingBytes > this.maxLineBytes) return this.overflow(lines);
      this.pending.push(chunk.subarray(start));
    }
    return { lines, overflow: false };
  }

  /** A line has begun and not ended yet: bytes of it are held for the next chunk. */
  get midLine(): boolean {
    return this.pendingBytes > 0;
  }

  private take(tail: Buffer): string {
    const bytes = this.pending.length === 0 ? tail : Buffer.concat([...this.pending, tail]);
    this.pending = [];
    this.pendingBytes = 0;
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    return bytes.toString('utf8', 0, end);
  }

  private overflow(lines: string[]): LineChunk {
    this.overflowed = true;
    this.pending = [];
    this.pendingBytes = 0;
    return { lines, overflow: true };
  }
}
