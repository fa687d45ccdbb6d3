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

/** The engine.warning envelopes of `code` in the file, once there is one (sinks write in batches). */
export async function warningsOf(file: string, code: string): Promise<JsonEnvelope[]> {
  const of = (es: JsonEnvelope[]): JsonEnvelope[] => ofType(es, 'engine.warning').filter((e) => e.payload['code'] === code);
  return of(await waitForEvents(file, (es) => of(es).length > 0, WAIT_MS, `an engine.warning ${code}`));
}
