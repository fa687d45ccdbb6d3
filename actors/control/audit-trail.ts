import type { Logger } from 'pino';
import type { BusEvent } from '../../streams/contract.js';
import { HOT_SECTIONS } from '../config/applied-overlay.js';
import type { WriteOperation } from './write-operations.js';

/** Who made a control write: the key's id on HTTP and the Clash API; on IPC, what the socket tells (docs/control-plane.md). */
export interface AuditCaller {
  transport: 'http' | 'clash' | 'ipc';
  /** The key's id (`api_key` for control.api_key); null on IPC, which takes no key. */
  key_id: string | null;
  /** The peer's IP address; null on IPC. */
  remote: string | null;
  /** IPC: the node's own uid, the only one (with root) the socket's mode 0600 lets connect. */
  uid?: number;
}

/** The payload of a `control.audit` event, and the fields of its log line. */
export interface AuditPayload {
  caller: AuditCaller;
  operation: WriteOperation;
  /** What the write names (a flow id, a tag, the sections of a config.apply); never a value of a config body. */
  target: Record<string, unknown>;
  result: 'ok' | 'error';
  /** The registry code of a refusal; null when `ok`. */
  code: string | null;
}

/** Longest text of a target field kept (a flow id or tag a caller sent can be any length). */
const MAX_FIELD_CHARS = 256;
/** Most tags of a config.apply's sink edits kept. */
const MAX_TAGS = 64;

function text(value: unknown): string | null {
  return typeof value === 'string' ? value.slice(0, MAX_FIELD_CHARS) : null;
}

function tags(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.slice(0, MAX_TAGS).flatMap((item: unknown) => {
    const tag = typeof item === 'object' && item !== null ? (item as { tag?: unknown }).tag : item;
    const shown = text(tag);
    return shown === null ? [] : [shown];
  });
}

/** The fields named by each write, as IPC names them (REST's path parameters included). */
const NAMED_FIELDS: Partial<Record<WriteOperation, readonly string[]>> = {
  'flows.close': ['flow_id'],
  select: ['selector', 'member'],
  'policies.probe': ['tag'],
  'proxies.delay': ['tag'],
  mode: ['mode', 'target'],
  log_level: ['level'],
  'configs.patch': ['mode', 'log_level'],
  'sinks.replay': ['sink'],
};

/**
 * What a write names, from its request fields: only the fields that name things, as
 * text, so no secret a body carries (a token, a password in a route) reaches the
 * trail. Of a config.apply only the sections it replaces and the sink tags it edits.
 */
export function auditTarget(op: WriteOperation, fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  if (op === 'config.apply') {
    return {
      sections: HOT_SECTIONS.filter((s) => Object.hasOwn(fields, s)),
      upsert_sinks: tags(fields['upsert_sinks']),
      remove_sinks: tags(fields['remove_sinks']),
    };
  }
  const target: Record<string, unknown> = {};
  for (const name of NAMED_FIELDS[op] ?? []) {
    const shown = text(fields[name]);
    if (shown !== null) target[name] = shown;
  }
  if (op === 'sinks.replay') target['ids'] = Array.isArray(fields['ids']) ? fields['ids'].length : null;
  return target;
}

export type AuditRecorder = (payload: AuditPayload) => void;

/** Records each write twice: a `control.audit` event (sinks can archive it) and an info log line. */
export function auditTrail(publish: (event: BusEvent<AuditPayload>) => void, log: Logger): AuditRecorder {
  const audit = log.child({ room: 'audit' });
  return (payload) => {
    publish({ event_type: 'control.audit', payload });
    audit.info(payload, 'control write');
  };
}
