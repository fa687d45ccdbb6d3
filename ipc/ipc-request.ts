import { z } from 'zod';
import { EVENT_TYPES } from '../streams/contract.js';
import { typeFilter } from '../streams/type-filter.js';
import type { IpcErrorReply, IpcRequest, RequestId } from './ipc-messages.js';

const SUBSCRIBABLE = new Set<string>(['*', ...EVENT_TYPES]);

export type ParsedLine = { ok: true; request: IpcRequest } | { ok: false; error: IpcErrorReply };

// The parts of a request line, each with the words its mistake earns. Unknown keys
// pass: an operation's own fields are checked where it runs, with its body's schema.

/** Any request: an object, with an id the reply can echo when it has one. */
const frame = z.looseObject(
  // JSON.parse reads 1e400 as Infinity, which the reply would echo as null: z.number() refuses it.
  { id: z.union([z.string(), z.number()], { error: 'id must be a string or a finite number' }).optional() },
  { error: 'a request must be a JSON object' },
);

const NOT_EVENT_LIST = 'events must be an array of event types';

/** A subscribe's whitelist: absent or null is every event. */
const events = z
  .array(z.string({ error: NOT_EVENT_LIST }), { error: NOT_EVENT_LIST })
  .pipe(z.array(z.string().refine((e) => SUBSCRIBABLE.has(e), { error: (issue) => `unknown event type ${JSON.stringify(issue.input)}` })))
  .nullish();

const op = z.string({ error: 'op must be a string' });

const stats = z.looseObject({}, { error: 'stats must be an object: {"stats":{}}' });

/** The value, or the words of the first thing wrong with it. */
function check<T>(schema: z.ZodType<T>, value: unknown): { ok: true; value: T } | { ok: false; message: string } {
  const result = schema.safeParse(value);
  return result.success ? { ok: true, value: result.data } : { ok: false, message: result.error.issues[0]!.message };
}

function fail(code: IpcErrorReply['code'], message: string, id?: RequestId): ParsedLine {
  return { ok: false, error: id === undefined ? { type: 'error', code, message } : { type: 'error', id, code, message } };
}

/** An operation's own fields: the message without `op` and `id`, so it parses as the REST body does. */
function fieldsOf(msg: Record<string, unknown>): Record<string, unknown> {
  const { op: _op, id: _id, ...fields } = msg;
  return fields;
}

/**
 * Reads one request line into a request, or the error reply it earns. Only the
 * message's form is checked here; an operation's own fields are checked where it runs.
 */
export function parseRequestLine(line: string): ParsedLine {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return fail('BAD_REQUEST', 'the line is not valid JSON');
  }
  const framed = check(frame, json);
  if (!framed.ok) return fail('BAD_REQUEST', framed.message);
  // The parsed line itself, not zod's copy: a body keeps every field as it came.
  const msg = json as Record<string, unknown>;
  const id = framed.value.id;
  const base = id === undefined ? {} : { id };

  if (msg['type'] === 'subscribe') {
    const list = check(events, msg['events']);
    if (!list.ok) return fail('INVALID_BODY', list.message, id);
    if (list.value === null || list.value === undefined) return { ok: true, request: { kind: 'subscribe', ...base, events: null } };
    // An empty list, or one holding "*", is every event (the contract's whitelist rule): the ACK says ["*"], not [].
    const whitelist = typeFilter(list.value) === null ? null : [...new Set(list.value)];
    return { ok: true, request: { kind: 'subscribe', ...base, events: whitelist } };
  }
  if (msg['type'] !== undefined) return fail('UNSUPPORTED_OPERATION', `unknown message type ${JSON.stringify(msg['type'])}`, id);
  if (msg['op'] !== undefined) {
    const named = check(op, msg['op']);
    if (!named.ok) return fail('BAD_REQUEST', named.message, id);
    return { ok: true, request: { kind: 'op', ...base, op: named.value, body: fieldsOf(msg) } };
  }
  if ('stats' in msg) {
    const query = check(stats, msg['stats']);
    if (!query.ok) return fail('INVALID_BODY', query.message, id);
    return { ok: true, request: { kind: 'stats', ...base } };
  }
  return fail('BAD_REQUEST', 'a request has "op", "type":"subscribe" or "stats"', id);
}
