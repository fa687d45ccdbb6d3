import { ControlError } from '../../actors/control/control-error.js';
import { EVENT_TYPES } from '../../streams/contract.js';
import { typeFilter, typeNamesFromQuery } from '../../streams/type-filter.js';

const KNOWN_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);

/** Largest `limit` of GET /api/v1/events: one response stays a few MiB at most. */
export const MAX_REPLAY_LIMIT = 10_000;

/** A query value as Express's simple parser gives it: absent, one string, or repeated. */
function single(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  throw new ControlError('BAD_REQUEST', `${name} must be given once`);
}

/** A string query parameter given at most once; undefined when absent. */
export function stringParam(name: string, value: unknown): string | undefined {
  return single(name, value);
}

/** A non-negative integer query parameter (or header value); undefined when absent. */
export function integerParam(name: string, value: unknown, range: { min: number; max: number }): number | undefined {
  const text = single(name, value);
  if (text === undefined) return undefined;
  const n = /^\d{1,16}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < range.min || n > range.max) {
    throw new ControlError('BAD_REQUEST', `${name} must be an integer from ${range.min} to ${range.max}`);
  }
  return n;
}

export function sequenceParam(name: string, value: unknown): number | undefined {
  return integerParam(name, value, { min: 0, max: Number.MAX_SAFE_INTEGER });
}

/**
 * The `types` whitelist (comma separated or repeated; `*`, empty or absent = all) as
 * the control operations take it. An unknown type is refused rather than matching
 * nothing, so a typo does not look like a quiet node.
 */
export function typesParam(value: unknown): string[] | null {
  const names = typeNamesFromQuery(value);
  // Checked before `*` makes the list "all": `*,flow.nope` has a typo too.
  const unknown = names.filter((t) => t !== '*' && !KNOWN_TYPES.has(t));
  if (unknown.length > 0) {
    throw new ControlError('BAD_REQUEST', `unknown event type ${unknown.map((t) => `"${t}"`).join(', ')}`, {
      event_types: EVENT_TYPES,
    });
  }
  const filter = typeFilter(names);
  return filter === null ? null : [...filter];
}

export interface StreamParams {
  types: string[] | null;
  since: number | null;
}

/**
 * The options of a live stream (SSE or WebSocket). The `since` query parameter wins
 * over a `Last-Event-ID` header: a client that names a position explicitly means it,
 * while the header is what a browser resends on its own.
 */
export function streamParams(q: { types: unknown; since: unknown; lastEventId: string | undefined }): StreamParams {
  const since = sequenceParam('since', q.since) ?? sequenceParam('Last-Event-ID', q.lastEventId || undefined);
  return { types: typesParam(q.types), since: since ?? null };
}
