import type { Endpoint, FlowResult, UdpUpstreamStats } from '../../streams/contract.js';
import { FlowFailureError } from '../errors/flow-failure.js';
import { failed } from '../flows/flow-result.js';
import type { OpenedUdpFlow } from './open-udp-flow.js';

/**
 * The result of an association that was relaying: `cancelled`/`manual` after
 * flows.close, `failed`/`upstream_error` when its upstream broke (the hop ended the
 * association, a socket failed), else the relayed outcome with `idle_timeout` or no
 * close reason (the client ended the control connection, or shutdown).
 */
export function udpResult(flow: OpenedUdpFlow, upstreamError: Error | null): FlowResult {
  const { actor, outbound, upstream } = flow;
  if (actor.closeRequest === 'manual') return { outcome: 'cancelled', close_reason: 'manual', failure: null };
  if (upstreamError && !actor.closeRequest) {
    const hop = upstream.relay_chain[0];
    const remote: Endpoint = hop ? { host: hop.server, port: hop.port } : { host: actor.record.target.host, port: actor.record.target.port };
    return failed(new FlowFailureError('UPSTREAM_RESET', `UDP association broke: ${upstreamError.message}`, remote, { cause: upstreamError }));
  }
  return { outcome: outbound.chained ? 'chained_relayed' : 'direct_relayed', close_reason: actor.closeReason, failure: null };
}

/**
 * Counts an association's end: every end is closed; an idle one is an idle timeout;
 * one the node or the upstream cut short (flows.close, shutdown, upstream broke) is
 * dropped. An end by the client's control connection is neither.
 */
export function countEnd(stats: UdpUpstreamStats, flow: OpenedUdpFlow, upstreamError: Error | null): void {
  stats.active_associations--;
  stats.closed_associations++;
  const request = flow.actor.closeRequest;
  if (request === 'idle_timeout') stats.idle_timeouts++;
  else if (request !== null || upstreamError !== null) stats.dropped_associations++;
}
