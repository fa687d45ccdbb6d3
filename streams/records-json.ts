import type { FlowRecord } from './contract.js';

/** Records serialized between two turns of the event loop: ~1-2 ms of work. */
export const RECORDS_PER_SLICE = 256;

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
 * slice of all listings per turn, laterTurn). The active table of a busy node is tens
 * of thousands of flows: listed in one go they would hold the loop, and so every
 * relay, for tens of ms.
 * Records are revised by copy, never changed in place, so the array taken at the call
 * is a consistent view however long the writing takes. `stopped` is asked before each
 * slice after the first: a listing nobody waits for any more ends early.
 */
export async function* recordSlices(records: readonly FlowRecord[], stopped: () => boolean = () => false): AsyncGenerator<string> {
  for (let at = 0; at < records.length; at += RECORDS_PER_SLICE) {
    if (at > 0) {
      await laterTurn();
      if (stopped()) return;
    }
    yield JSON.stringify(records.slice(at, at + RECORDS_PER_SLICE)).slice(1, -1);
  }
}

/** Slices of array elements (recordSlices) as one JSON array. */
export async function joinSlices(slices: AsyncIterable<string>): Promise<string> {
  const parts: string[] = [];
  for await (const slice of slices) parts.push(slice);
  return `[${parts.join(',')}]`;
}
