import { WeirError } from '../errors/weir-error.js';
/** Why one member's probe failed; `error` in policy.probe.completed is `code: message`. */
export type ProbeErrorCode =
  | 'PROBE_TIMEOUT'
  | 'PROBE_ABORTED'
  | 'PROBE_TLS_FAILED'
  | 'PROBE_CLOSED'
  | 'PROBE_BAD_RESPONSE'
  | 'PROBE_HTTP_STATUS';

export class ProbeError extends WeirError<ProbeErrorCode> {}

/**
 * The `error` string of a member: the error's stable code (a ProbeError's, or a dial
 * failure's registry code) and its message. Messages name hosts and ports, never
 * credentials.
 */
export function probeErrorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? `${code}: ${err.message}` : err.message;
}
