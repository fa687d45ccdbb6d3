import { WeirError } from '../errors/weir-error.js';
/** Where a JSON text first breaks the grammar, and why, without quoting the text. */
export interface JsonSyntaxError {
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units as editors count them; a tab counts 1. */
  column: number;
  reason: string;
}

class Broken extends WeirError<'CONFIG_JSON_SYNTAX'> {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super('CONFIG_JSON_SYNTAX', reason);
  }
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const HEX4 = /[0-9a-fA-F]{4}/y;

/**
 * A recursive-descent reading of RFC 8259, used once JSON.parse has refused a text:
 * V8's message gives no position for some errors (a trailing comma, an early end) and
 * quotes the text around the others, which may hold a secret. Only punctuation of the
 * grammar is named in a reason, never the file's own characters.
 */
class Reader {
  private at = 0;

  constructor(private readonly text: string) {}

  document(): void {
    if (this.text.charCodeAt(0) === 0xfeff) throw new Broken(0, 'a byte order mark (BOM) before the document; save the file as UTF-8 without BOM');
    this.value();
    this.skipWhitespace();
    if (this.at < this.text.length) throw new Broken(this.at, 'more text after the end of the document');
  }

  private value(): void {
    this.skipWhitespace();
    const c = this.text[this.at];
    if (c === undefined) throw new Broken(this.at, 'the file ends where a value is expected');
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (c === '-' || (c >= '0' && c <= '9')) return this.number();
    for (const word of ['true', 'false', 'null']) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return;
      }
    }
    throw new Broken(this.at, 'a value is expected here (a string in double quotes, a number, an object, an array, true, false or null)');
  }

  private object(): void {
    this.at += 1;
    this.skipWhitespace();
    if (this.text[this.at] === '}') {
      this.at += 1;
      return;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.at] !== '"') throw new Broken(this.at, this.expected('a property name in double quotes'));
      this.string();
      this.skipWhitespace();
      if (this.text[this.at] !== ':') throw new Broken(this.at, this.expected("':' after the property name"));
      this.at += 1;
      this.value();
      if (this.separator('}')) return;
    }
  }

  private array(): void {
    this.at += 1;
    this.skipWhitespace();
    if (this.text[this.at] === ']') {
      this.at += 1;
      return;
    }
    for (;;) {
      this.value();
      if (this.separator(']')) return;
    }
  }

  /** After a member or element: true at the closing bracket, false after a comma that another one follows. */
  private separator(close: '}' | ']'): boolean {
    this.skipWhitespace();
    const c = this.text[this.at];
    if (c === close) {
      this.at += 1;
      return true;
    }
    if (c !== ',') throw new Broken(this.at, this.expected(`',' or '${close}'`));
    const comma = this.at;
    this.at += 1;
    this.skipWhitespace();
    const next = this.text[this.at];
    if (next === '}' || next === ']') throw new Broken(comma, `a trailing comma before '${next}' (JSON allows none)`);
    return false;
  }

  private string(): void {
    const start = this.at;
    this.at += 1;
    for (;;) {
      const c = this.text[this.at];
      if (c === undefined) throw new Broken(start, 'a string that is never closed with \'"\'');
      if (c === '"') {
        this.at += 1;
        return;
      }
      if (c.charCodeAt(0) < 0x20) {
        throw new Broken(this.at, c === '\n' ? 'a line break inside a string (a missing \'"\'?)' : 'a control character inside a string (write it as an escape such as \\t)');
      }
      if (c === '\\') this.escape();
      else this.at += 1;
    }
  }

  private escape(): void {
    const c = this.text[this.at + 1];
    if (c !== undefined && ESCAPES.has(c)) {
      this.at += 2;
      return;
    }
    HEX4.lastIndex = this.at + 2;
    if (c === 'u' && HEX4.test(this.text)) {
      this.at += 6;
      return;
    }
    throw new Broken(this.at, 'an invalid escape inside a string (allowed: \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)');
  }

  private number(): void {
    NUMBER.lastIndex = this.at;
    const match = NUMBER.exec(this.text);
    const end = match ? this.at + match[0].length : this.at;
    const next = this.text[end];
    if (!match || (next !== undefined && /[0-9A-Za-z.+-]/.test(next))) throw new Broken(this.at, 'an invalid number');
    this.at = end;
  }

  private skipWhitespace(): void {
    while (this.at < this.text.length && WHITESPACE.has(this.text[this.at]!)) this.at += 1;
  }

  private expected(what: string): string {
    return this.at >= this.text.length ? `the file ends where ${what} is expected` : `${what} expected here`;
  }
}

function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

/** The first syntax error of `text`, or null when it is JSON (or too deeply nested to read here). */
export function findJsonSyntaxError(text: string): JsonSyntaxError | null {
  try {
    new Reader(text).document();
    return null;
  } catch (err) {
    if (!(err instanceof Broken)) return null;
    return { ...position(text, err.offset), reason: err.reason };
  }
}

/** `<label> is not valid JSON (line L, column C: reason)`, the way every config reader says it. */
export function jsonSyntaxMessage(label: string, text: string): string {
  const found = findJsonSyntaxError(text);
  return found === null ? `${label} is not valid JSON` : `${label} is not valid JSON (line ${found.line}, column ${found.column}: ${found.reason})`;
}
