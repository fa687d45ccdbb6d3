import type { Endpoint, FlowFailure } from '../../streams/contract.js';
import { FAILURE_CODES, type FailureCode } from './failure-codes.js';
import { WeirError } from './weir-error.js';

/** An error that ends a flow as `failed`; it carries the registry code and the stage. */
export class FlowFailureError extends WeirError<FailureCode> {
  readonly stage: string;

  constructor(
    code: FailureCode,
    message: string,
    readonly remote?: Endpoint,
    options?: { cause?: unknown; stage?: string },
  ) {
    super(code, message, options);
    this.stage = options?.stage ?? FAILURE_CODES[code].stage;
  }

  toFailure(): FlowFailure {
    const failure: FlowFailure = { stage: this.stage, code: this.code, message: this.message };
    if (this.remote) failure.remote = this.remote;
    return failure;
  }
}

const ERRNO_CODES: Record<string, FailureCode> = {
  ECONNREFUSED: 'DIAL_REFUSED',
  ETIMEDOUT: 'DIAL_TIMEOUT',
  EHOSTUNREACH: 'DIAL_UNREACHABLE',
  ENETUNREACH: 'DIAL_UNREACHABLE',
  ENOTFOUND: 'DNS_FAILED',
  EAI_AGAIN: 'DNS_FAILED',
  EAI_FAIL: 'DNS_FAILED',
  ECONNRESET: 'UPSTREAM_RESET',
  EPIPE: 'UPSTREAM_RESET',
};

/** Maps a socket error of the dial stage to a registry code. */
export function dialFailure(err: unknown, remote: Endpoint): FlowFailureError {
  if (err instanceof FlowFailureError) return err;
  const errno = (err as NodeJS.ErrnoException | undefined)?.code ?? '';
  const code = ERRNO_CODES[errno] === 'UPSTREAM_RESET' ? 'DIAL_FAILED' : (ERRNO_CODES[errno] ?? 'DIAL_FAILED');
  const detail = errno ? `${errno}` : err instanceof Error ? err.message : 'unknown error';
  return new FlowFailureError(code, `connect to ${remote.host}:${remote.port} failed: ${detail}`, remote, { cause: err });
}

/** Maps an error of the remote socket during the relay. */
export function relayFailure(err: unknown, remote: Endpoint): FlowFailureError {
  const errno = (err as NodeJS.ErrnoException | undefined)?.code ?? 'unknown';
  return new FlowFailureError('UPSTREAM_RESET', `remote ${remote.host}:${remote.port} broke the relay: ${errno}`, remote, {
    cause: err,
  });
}

/** A target the node refuses to dial (route.block_private): the flow ends `blocked`, and this failure says why. */
export class TargetRefusedError extends FlowFailureError {}
