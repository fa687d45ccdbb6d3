import { EVENT_TYPES } from '../../streams/contract.js';
import { typeFilter } from '../../streams/type-filter.js';
import type { IpcErrorReply, IpcRequest, RequestId } from './ipc-messages.js';

const SUBSCRIBABLE = new Set<string>(['*', ...EVENT_TYPES]);

export type ParsedLine = { ok: true; request: IpcRequest } | { ok: false; error: IpcErrorReply };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch {
    return fail('BAD_REQUEST', 'the line is not valid JSON');
  }
  if (!isObject(msg)) return fail('BAD_REQUEST', 'a request must be a JSON object');
  const rawId = msg['id'];
  // JSON.parse reads 1e400 as Infinity, which the reply would echo as null.
  if (rawId !== undefined && typeof rawId !== 'string' && !(typeof rawId === 'number' && Number.isFinite(rawId))) {
    return fail('BAD_REQUEST', 'id must be a string or a finite number');
  }
  const id: RequestId | undefined = rawId;
  const base = id === undefined ? {} : { id };

  if (msg['type'] === 'subscribe') {
    const events = msg['events'];
    if (events === undefined || events === null) return { ok: true, request: { kind: 'subscribe', ...base, events: null } };
    if (!Array.isArray(events) || !events.every((e): e is string => typeof e === 'string')) {
      return fail('INVALID_BODY', 'events must be an array of event types', id);
    }
    const unknown = events.filter((e) => !SUBSCRIBABLE.has(e));
    if (unknown.length > 0) return fail('INVALID_BODY', `unknown event type ${JSON.stringify(unknown[0])}`, id);
    // An empty list, or one holding "*", is every event (the contract's whitelist rule): the ACK says ["*"], not [].
    const whitelist = typeFilter(events) === null ? null : [...new Set(events)];
    return { ok: true, request: { kind: 'subscribe', ...base, events: whitelist } };
  }
  if (msg['type'] !== undefined) return fail('UNSUPPORTED_OPERATION', `unknown message type ${JSON.stringify(msg['type'])}`, id);
  const op = msg['op'];
  if (typeof op === 'string') return { ok: true, request: { kind: 'op', ...base, op, body: fieldsOf(msg) } };
  if (op !== undefined) return fail('BAD_REQUEST', 'op must be a string', id);
  if ('stats' in msg) {
    if (!isObject(msg['stats'])) return fail('INVALID_BODY', 'stats must be an object: {"stats":{}}', id);
    return { ok: true, request: { kind: 'stats', ...base } };
  }
  return fail('BAD_REQUEST', 'a request has "op", "type":"subscribe" or "stats"', id);
}
