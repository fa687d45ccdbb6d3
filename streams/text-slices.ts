import type { KeptText } from './kept-text.js';

/** Items newly written between two turns of the event loop: ~1-2 ms of work for flow records. */
export const RECORDS_PER_SLICE = 256;
/** Kept text taken between two turns: joining and writing it is well under 1 ms. */
export const SLICE_CHARS = 1 << 20;

/** Writings waiting for their next slice, in the order they asked. */
const waiting: (() => void)[] = [];
let releasing = false;

function releaseOne(): void {
  waiting.shift()?.();
  if (waiting.length > 0) setImmediate(releaseOne);
  else releasing = false;
}

/**
 * Resolves on a later turn of the event loop, one waiting writing per turn: however
 * many are under way, a turn takes at most one slice of theirs, so many at once slow
 * each other down, not the relays and the other requests.
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
 * The texts of `items` (`texts`), a slice at a time, each slice the texts joined by
 * commas (JSON array elements, when they are JSON), with the event loop turning between
 * slices (one slice of all writings under way per turn, laterTurn). A slice ends after
 * RECORDS_PER_SLICE texts newly written or SLICE_CHARS of text. The active table of a
 * busy node is tens of thousands of flows: written in one go they would hold the loop,
 * and so every relay, for tens of ms. The array taken at the call is a consistent view
 * however long the writing takes. `stopped` is asked before each slice after the first:
 * a writing nobody waits for any more ends early.
 */
export async function* textSlices<T extends object>(items: readonly T[], texts: KeptText<T>, stopped: () => boolean = () => false): AsyncGenerator<string> {
  let at = 0;
  while (at < items.length) {
    if (at > 0) {
      await laterTurn();
      if (stopped()) return;
    }
    const parts: string[] = [];
    let fresh = 0;
    let chars = 0;
    while (at < items.length && fresh < RECORDS_PER_SLICE && chars < SLICE_CHARS) {
      const item = items[at++]!;
      let text = texts.kept(item);
      if (text === undefined) {
        text = texts.write(item);
        fresh += 1;
      }
      parts.push(text);
      chars += text.length;
    }
    yield parts.join(',');
  }
}

/** The slices joined by commas: the elements of one JSON array, without its brackets. */
export async function joinedSlices(slices: AsyncIterable<string>): Promise<string> {
  const parts: string[] = [];
  for await (const slice of slices) parts.push(slice);
  return parts.join(',');
}
