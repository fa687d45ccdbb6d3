import { plainString } from './json-text.js';

/**
 * The pieces of one text, joined once. A template or `+` makes a string object for every
 * piece (a flow's three events made ~500) and a tree that is walked again to flatten it
 * when the text is first written out; a joined list makes one flat string. The list is
 * kept from one text to the next and only its count reset: emptied (`length = 0`), an
 * array gives up its backing store and grows it again step by step, ~4 KB of garbage
 * per event.
 */
export class Pieces {
  private readonly parts: string[] = [];
  private count = 0;
  private chars = 0;

  add(piece: string): void {
    this.parts[this.count++] = piece;
    this.chars += piece.length;
  }

  /** UTF-16 units added since the text began. */
  get length(): number {
    return this.chars;
  }

  /**
   * The text `write` adds, joined; the list is then empty for the next one. One list
   * serves one text at a time: a writer runs to its end and never starts another text.
   */
  joined(write: (out: Pieces) => void): string {
    try {
      write(this);
    } catch (err) {
      // A writer that threw (a value of the wrong type) leaves nothing for the next text.
      this.take();
      throw err;
    }
    return this.take();
  }

  private take(): string {
    this.parts.length = this.count;
    this.count = 0;
    this.chars = 0;
    return this.parts.join('');
  }
}

/** A string (or null) as JSON.stringify writes it; a plain one goes in as it is, between two constant quotes. */
export function addString(out: Pieces, value: string | null): void {
  if (value === null) out.add('null');
  else if (plainString(value)) {
    out.add('"');
    out.add(value);
    out.add('"');
  } else out.add(JSON.stringify(value));
}
