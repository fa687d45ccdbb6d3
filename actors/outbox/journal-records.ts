import type { OutboxState, ReplayGap } from '../contracts/outbox.js';
import type { Counters } from './outbox-state.js';

/**
 * The lines of a sink's journal, one JSON object each, keyed by `k`. An entry whose body
 * has no newline (every JSON envelope) is `E`, a tab, the record without `b` as JSON, a
 * tab and the body unescaped. Entries are numbered by position (`p`, append order). A
 * batch ends with a commit line; lines after a segment's last one are ignored (torn).
 *   e  an entry with its body: appended, or moved forward (with attempts, due time, dead letter)
 *   a  entries delivered
 *   r  a failed attempt: attempts so far and when the entry is due again
 *   d  an entry moved to the dead-letter set
 *   l  dead letters made pending again (replayed)
 *   c  commit: the sink's counters, and its gaps when they changed
 */
export interface EntryRecord {
  k: 'e';
  p: number;
  i: string;
  s: number;
  t: number;
  r: number | null;
  b: string;
  n?: number;
  w?: number;
  x?: string;
  y?: number;
}

export type JournalRecord =
  | EntryRecord
  | { k: 'a'; p: number[] }
  | { k: 'r'; p: number; n: number; w: number }
  | { k: 'd'; p: number; n: number; x: string; y: number }
  | { k: 'l'; p: number[]; t: number }
  | CommitRecord;

export interface CommitRecord {
  k: 'c';
  d: number;
  f: number;
  g: number;
  l: OutboxState['last_error'];
  G?: ReplayGap[];
}

export function commitRecord(c: Counters, gaps: ReplayGap[] | null): CommitRecord {
  const record: CommitRecord = { k: 'c', d: c.total_delivered, f: c.total_failed, g: c.replay_gaps, l: c.last_error };
  if (gaps) record.G = gaps;
  return record;
}

function encodeLine(r: JournalRecord): string {
  if (r.k !== 'e' || r.b.includes('\n')) return `${JSON.stringify(r)}\n`;
  const { b, ...head } = r;
  return `E\t${JSON.stringify(head)}\t${b}\n`;
}

/** The record of one line (without its newline) of `data`, from `start` to `end`; throws when it does not parse. */
export function decodeLine(data: Buffer, start: number, end: number): JournalRecord {
  if (data[start] !== 0x45) return JSON.parse(data.toString('utf8', start, end)) as JournalRecord;
  // The header is JSON, which holds no raw tab: the first tab after it starts the body.
  const tab = data.indexOf(9, start + 2);
  if (data[start + 1] !== 9 || tab < 0 || tab >= end) throw new Error('a torn entry line');
  const head = JSON.parse(data.toString('utf8', start + 2, tab)) as Omit<EntryRecord, 'b'>;
  return { ...head, b: data.toString('utf8', tab + 1, end) };
}

/** The lines of one batch as UTF-8, with where each line starts and how long it is. */
export function encodeBatch(records: readonly JournalRecord[]): { buf: Buffer; offsets: number[]; lengths: number[] } {
  const lines = records.map(encodeLine);
  const lengths = lines.map((l) => Buffer.byteLength(l));
  const buf = Buffer.allocUnsafe(lengths.reduce((n, l) => n + l, 0));
  const offsets: number[] = [];
  let at = 0;
  for (const line of lines) {
    offsets.push(at);
    at += buf.write(line, at);
  }
  return { buf, offsets, lengths };
}

/** The records of a segment's complete batches with their places: stops at a torn line, drops what follows the last commit. */
export function decodeSegment(data: Buffer): { record: JournalRecord; off: number; len: number }[] {
  const out: { record: JournalRecord; off: number; len: number }[] = [];
  let committed = 0;
  for (let off = 0; off < data.length; ) {
    const end = data.indexOf(10, off);
    if (end < 0) break;
    let record: JournalRecord;
    try {
      record = decodeLine(data, off, end);
    } catch {
      break;
    }
    out.push({ record, off, len: end + 1 - off });
    if (record.k === 'c') committed = out.length;
    off = end + 1;
  }
  return out.slice(0, committed);
}
