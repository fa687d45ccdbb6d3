import fs from 'node:fs';
import type { Envelope, EventType } from '../../streams/contract.js';
import { WAIT_MS } from './far-bound.js';
import { waitFor } from './wait-for.js';

/** An envelope as read back from the sink; payload fields are checked by the specs. */
export type JsonEnvelope = Envelope<Record<string, unknown>>;

/**
 * The envelopes of a JSONL file, in file order. A missing file is empty, and a last
 * line still being written (no newline yet) is left for the next read.
 */
export function readJsonl(file: string): JsonEnvelope[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  return complete
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as JsonEnvelope);
}

/** Polls the file until `done(envelopes)` holds, and returns the envelopes then. */
export function waitForEvents(
  file: string,
  done: (events: JsonEnvelope[]) => boolean,
  timeoutMs = WAIT_MS,
  what = 'events',
): Promise<JsonEnvelope[]> {
  return waitFor(() => {
    const events = readJsonl(file);
    return done(events) ? events : undefined;
  }, timeoutMs, what);
}

export function ofType(events: readonly JsonEnvelope[], type: EventType): JsonEnvelope[] {
  return events.filter((e) => e.event_type === type);
}
