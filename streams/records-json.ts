import type { FlowRecord } from './contract.js';

/** Records serialized between two turns of the event loop: ~1-2 ms of work. */
export const RECORDS_PER_SLICE = 256;
/** Text taken from serialized records between two turns: joining and writing it is well under 1 ms. */
export const SLICE_CHARS = 1 << 20;

/**
 * Each record's JSON, kept while the record lives. Records are revised by copy, never
 * changed in place, so an object's JSON never changes: an idle tunnel's record is
 * serialized once however often the table is listed, and a listing of a large table
 * of idle flows is mostly joining text. JSON.stringify's text is flat: joined again
 * and again, it is copied, never walked piece by piece as a template's would be.
 */
const serialized = new WeakMap<FlowRecord, string>();

/** Listings waiting for their next slice, in the order they asked. */
const waiting: (() => void)[] = [];
let releasing = false;

function releaseOne(): void {
  waiting.shift()?.();
  if (waiting.length > 0) setImmediate(releaseOne);
  else releasing = false;
}

/**
 * Resolves on a later turn of the event loop, one waiting listing per turn: however
 * many listings are under way, a turn serializes at most one slice of theirs, so many
 * at once slow each other down, not the relays and the other requests.
 */
function laterTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (releasing) return;
    releasing = true;
    setImmediate(releaseOne);
  });
}

/**
 * The JSON of `records` a slice at a time: each slice's records as array elements
 * (the text between the brackets), with the event loop turning between slices (one
 * slice of all listings per turn, laterTurn). A slice ends after RECORDS_PER_SLICE
 * records serialized or SLICE_CHARS of text. The active table of a busy node is tens of
 * thousands of flows: listed in one go they would hold the loop, and so every relay,
 * for tens of ms. The array taken at the call is a consistent view however long the
 * writing takes. `stopped` is asked before each slice after the first: a listing
 * nobody waits for any more ends early.
 */
export async function* recordSlices(records: readonly FlowRecord[], stopped: () => boolean = () => false): AsyncGenerator<string> {
  let at = 0;
  while (at < records.length) {
    if (at > 0) {
      await laterTurn();
      if (stopped()) return;
    }
    const parts: string[] = [];
    let fresh = 0;
    let chars = 0;
    while (at < records.length && fresh < RECORDS_PER_SLICE && chars < SLICE_CHARS) {
      const record = records[at++]!;
      let json = serialized.get(record);
      if (json === undefined) {
        json = JSON.stringify(record);
        serialized.set(record, json);
        fresh += 1;
      }
      parts.push(json);
      chars += json.length;
    }
    yield parts.join(',');
  }
}

/** Slices of array elements (recordSlices) as one JSON array. */
export async function joinSlices(slices: AsyncIterable<string>): Promise<string> {
  const parts: string[] = [];
  for await (const slice of slices) parts.push(slice);
  return `[${parts.join(',')}]`;
}
