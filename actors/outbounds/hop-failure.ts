import { FlowFailureError } from '../errors/flow-failure.js';
import type { FailureCode } from '../errors/failure-codes.js';
import { HopNegotiationError, type HopErrorKind } from '../errors/hop-error.js';
import { hopEndpoint, type Hop } from './hop.js';

/** A failure that names the hop at fault: stage `hop:<tag>`, remote = its server:port. */
export function hopFailure(code: FailureCode, hop: Hop, detail: string): FlowFailureError {
  return new FlowFailureError(code, `hop "${hop.tag}" (${hop.protocol} ${hop.server}:${hop.port}) ${detail}`, hopEndpoint(hop), {
    stage: `hop:${hop.tag}`,
  });
}

const KIND_CODES: Record<HopErrorKind, FailureCode> = {
  auth: 'HOP_AUTH_FAILED',
  rejected: 'HOP_REJECTED',
  protocol: 'HOP_PROTOCOL_ERROR',
  closed: 'HOP_CLOSED',
  timeout: 'HOP_TIMEOUT',
};

// SOCKS5 replies that say the hop could not open a TCP connection to where it was sent.
const UNREACHED: Record<string, FailureCode> = {
  ConnectionRefused: 'HOP_REFUSED',
  HostUnreachable: 'HOP_UNREACHABLE',
  NetworkUnreachable: 'HOP_UNREACHABLE',
};

/**
 * Turns the error of negotiating hops[index] into the flow's failure. When a SOCKS5
 * hop reports that it could not reach the next hop, the next hop is the one at fault.
 */
export function negotiationFailure(err: unknown, hops: readonly Hop[], index: number, timedOut: boolean): FlowFailureError {
  const hop = hops[index]!;
  if (timedOut) return hopFailure('HOP_TIMEOUT', hop, 'did not finish its handshake before the connect timeout');
  if (!(err instanceof HopNegotiationError)) {
    return hopFailure('HOP_CLOSED', hop, `failed during its handshake: ${err instanceof Error ? err.message : String(err)}`);
  }
  const next = hops[index + 1];
  const unreached = err.reply === undefined ? undefined : UNREACHED[err.reply];
  if (next && unreached) {
    const what = unreached === 'HOP_REFUSED' ? 'refused the connection' : 'is unreachable';
    return hopFailure(unreached, next, `${what} from hop "${hop.tag}"`);
  }
  return hopFailure(KIND_CODES[err.kind], hop, err.message);
}

const CONNECT_CODES: Partial<Record<FailureCode, FailureCode>> = {
  DIAL_REFUSED: 'HOP_REFUSED',
  DIAL_TIMEOUT: 'HOP_TIMEOUT',
  DIAL_UNREACHABLE: 'HOP_UNREACHABLE',
  DNS_FAILED: 'HOP_UNREACHABLE',
};

/** Turns a failed TCP connect to the first hop (a tcpConnect failure) into a hop failure. */
export function firstHopFailure(err: unknown, hop: Hop): FlowFailureError {
  if (!(err instanceof FlowFailureError)) return hopFailure('HOP_CLOSED', hop, `could not be connected: ${String(err)}`);
  const code = CONNECT_CODES[err.code] ?? 'HOP_UNREACHABLE';
  // tcpConnect's message names the address and the errno; keep it after the hop's name.
  return hopFailure(code, hop, code === 'HOP_REFUSED' ? 'refused the connection' : `could not be connected: ${err.message}`);
}
