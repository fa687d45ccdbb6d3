import type { Scope } from '../config/schema-control.js';

/**
 * Every control write, by the name the audit trail gives it (the IPC operation's name
 * where IPC has it), and the scope a key needs for it. Reads (every GET and stream)
 * need `read`. HTTP, Clash and IPC routes take the scope from here, so one operation
 * needs the same scope on every face.
 */
export const WRITE_OPERATIONS = {
  'flows.close': 'operate',
  /** Clash `DELETE /connections`: flows.close for every active flow. */
  'flows.close_all': 'operate',
  select: 'operate',
  'policies.probe': 'operate',
  /** Clash `GET /proxies/{name}/delay`, `GET /group/{name}/delay` of a selector: probes of outbounds. */
  'proxies.delay': 'operate',
  mode: 'operate',
  log_level: 'operate',
  /** Clash `PATCH /configs`: the mode and the log level. */
  'configs.patch': 'operate',
  'principals.reset': 'admin',
  'config.apply': 'admin',
  'config.reload': 'admin',
  'sinks.replay': 'admin',
} as const satisfies Record<string, Exclude<Scope, 'read'>>;

export type WriteOperation = keyof typeof WRITE_OPERATIONS;

export function isWriteOperation(op: string): op is WriteOperation {
  return Object.hasOwn(WRITE_OPERATIONS, op);
}
