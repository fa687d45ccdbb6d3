import { WeirError } from './weir-error.js';
/** Why a hop negotiation failed, before the chain decides which hop to blame. */
export type HopErrorKind = 'auth' | 'rejected' | 'protocol' | 'closed' | 'timeout';

/**
 * Raised by a hop negotiator (SOCKS5, HTTP CONNECT). It knows the protocol answer only;
 * the chain dialer turns it into a FlowFailureError that names the hop. `reply` is the
 * SOCKS5 reply name when the hop answered CONNECT with a failure.
 */
export class HopNegotiationError extends WeirError<'HOP_NEGOTIATION'> {
  constructor(
    readonly kind: HopErrorKind,
    message: string,
    readonly reply?: string,
  ) {
    super('HOP_NEGOTIATION', message);
  }
}
