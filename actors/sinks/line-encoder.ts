/**
 * One line of JSON without its newline, whole or as parts written one after the other.
 * Parts spare a joined copy: a concatenated string is flattened (copied) when written.
 */
export type Line = string | readonly string[];

/** Lines encoded as UTF-8 with their newlines: `ends[i]` is the offset just past line i's newline. */
export interface EncodedLines {
  data: Buffer;
  ends: number[];
}

/** How many bytes one encode() fills at most (a single longer line still goes whole). */
const CHUNK_BYTES = 1 << 20;

/**
 * Encodes lines, each followed by a newline, into one reused buffer: writing each line
 * into a preallocated buffer costs a fraction of joining the lines into one string and
 * copying that into a new Buffer.
 */
export class LineEncoder {
  private scratch = Buffer.allocUnsafe(CHUNK_BYTES);

  /**
   * Encodes `lines` from index `from` on, stopping before a line that might not fit in
   * CHUNK_BYTES, reckoned at 3 bytes per UTF-16 unit (the first line is always taken).
   * The bytes stay valid until the next call.
   */
  encode(lines: readonly Line[], from: number): EncodedLines {
    if (this.scratch.length > CHUNK_BYTES) this.scratch = Buffer.allocUnsafe(CHUNK_BYTES);
    const ends: number[] = [];
    let offset = 0;
    for (let i = from; i < lines.length; i++) {
      const line = lines[i] as Line;
      // A UTF-16 code unit takes at most 3 bytes of UTF-8.
      const most = unitsOf(line) * 3 + 1;
      if (offset > 0 && offset + most > CHUNK_BYTES) break;
      if (most > this.scratch.length) this.scratch = Buffer.allocUnsafe(most);
      if (typeof line === 'string') offset += this.scratch.write(line, offset, 'utf8');
      else for (const part of line) offset += this.scratch.write(part, offset, 'utf8');
      this.scratch[offset++] = 0x0a;
      ends.push(offset);
    }
    return { data: this.scratch.subarray(0, offset), ends };
  }
}

function unitsOf(line: Line): number {
  if (typeof line === 'string') return line.length;
  let units = 0;
  for (const part of line) units += part.length;
  return units;
}
