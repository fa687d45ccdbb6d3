import type { FlowRecord } from './contract.js';
import { KeptText } from './kept-text.js';

/** Records serialized between two turns of the event loop: ~1-2 ms of work. */
export const RECORDS_PER_SLICE = 256;
/** Text taken from serialized records between two turns: joining and writing it is well under 1 ms. */
export const SLICE_CHARS = 1 << 20;

/** Each record's JSON, kept while the record lives: an idle flow is serialized once however often it is listed. */
const recordJson = new KeptText<FlowRecord>((record) => JSON.stringify(record));

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
      if (!recordJson.has(record)) fresh += 1;
      const json = recordJson.of(record);
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
