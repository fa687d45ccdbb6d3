import type { FlowResult } from '../../streams/contract.js';
import { relayFailure } from '../errors/flow-failure.js';
import type { OpenedFlow } from './flow-opener.js';

/**
 * The result of a flow that was relaying: `cancelled`/`manual` after flows.close,
 * `failed`/`upstream_error` when the remote broke the relay, else the relayed outcome
 * with `idle_timeout` or no close reason.
 */
export function relayResult(flow: OpenedFlow, remoteError: Error | null): FlowResult {
  const { actor, outbound } = flow;
  if (actor.closeRequest === 'manual') return { outcome: 'cancelled', close_reason: 'manual', failure: null };
  if (remoteError && !actor.closeRequest) {
    const remote = actor.record.path.remote ?? { host: actor.record.target.host, port: actor.record.target.port };
    return { outcome: 'failed', close_reason: 'upstream_error', failure: relayFailure(remoteError, remote).toFailure() };
  }
  return { outcome: outbound.chained ? 'chained_relayed' : 'direct_relayed', close_reason: actor.closeReason, failure: null };
}
