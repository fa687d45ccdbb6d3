import type { FlowResult } from '../../streams/contract.js';
import { relayFailure, type FlowFailureError, type TargetRefusedError } from '../errors/flow-failure.js';
import type { FlowActor } from './flow-actor.js';

/** A flow a rule (or the IPC hook) refused. */
export const BLOCKED: FlowResult = { outcome: 'blocked', close_reason: null, failure: null };

/** A flow the node refused to dial (route.block_private): blocked, and the failure says why. */
export function refused(refusal: TargetRefusedError): FlowResult {
  return { outcome: 'blocked', close_reason: null, failure: refusal.toFailure() };
}

/** A flow that failed: the upstream or the transport broke. */
export function failed(failure: FlowFailureError): FlowResult {
  return { outcome: 'failed', close_reason: 'upstream_error', failure: failure.toFailure() };
}

/** A flow closed (flows.close, shutdown, its client leaving) before it was established: it never carried anything. */
export function cancelledWhileOpening(actor: FlowActor): FlowResult {
  return { outcome: 'cancelled', close_reason: actor.closeReason, failure: null };
}

/**
 * The result of a flow that was relaying: `cancelled`/`manual` after flows.close,
 * `failed`/`upstream_error` when the remote broke the relay, else the relayed outcome
 * with `idle_timeout` or no close reason.
 */
export function relayResult(flow: { actor: FlowActor; outbound: { chained: boolean } }, remoteError: Error | null): FlowResult {
  const { actor, outbound } = flow;
  if (actor.closeRequest === 'manual') return { outcome: 'cancelled', close_reason: 'manual', failure: null };
  if (remoteError && !actor.closeRequest) {
    const remote = actor.record.path.remote ?? { host: actor.record.target.host, port: actor.record.target.port };
    return failed(relayFailure(remoteError, remote));
  }
  return { outcome: outbound.chained ? 'chained_relayed' : 'direct_relayed', close_reason: actor.closeReason, failure: null };
}
