/**
 * The one registry of `result.failure.code` values. Codes are stable: consumers
 * (billing, alerting) key on them. docs/failure-codes.md lists them; a spec keeps the
 * two in step.
 */
export const FAILURE_CODES = {
  DIAL_REFUSED: { stage: 'connect', meaning: 'The remote (or next hop) refused the TCP connection.' },
  DIAL_TIMEOUT: { stage: 'connect', meaning: 'No TCP connection within flows.connect_timeout_ms.' },
  DIAL_UNREACHABLE: { stage: 'connect', meaning: 'No route to the remote host or network.' },
  DNS_FAILED: { stage: 'resolve', meaning: 'The target host name did not resolve.' },
  DIAL_FAILED: { stage: 'connect', meaning: 'Any other error while opening the outbound connection.' },
  UPSTREAM_RESET: { stage: 'relay', meaning: 'The remote reset or broke the connection during the relay.' },
} as const satisfies Record<string, { stage: string; meaning: string }>;

export type FailureCode = keyof typeof FAILURE_CODES;
