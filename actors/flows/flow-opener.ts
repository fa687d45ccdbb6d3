import type { Endpoint, FlowAuth, FlowRoute, FlowSource, TagProtocol, UdpUpstreamStats } from '../../streams/contract.js';
import type { DialResult, Outbound } from '../contracts/outbound.js';
import { FlowFailureError, dialFailure } from '../errors/flow-failure.js';
import type { OutboundSet } from '../outbounds/outbound-set.js';
import { routeContext, type Router } from '../router/router.js';
import type { FlowActor } from './flow-actor.js';
import type { FlowTable } from './flow-table.js';

/** What the flow pipeline needs from the engine. */
export interface FlowEnv {
  table: FlowTable;
  router: Router;
  outbounds: OutboundSet;
  connectTimeoutMs: number;
  /** flows.idle_timeout_s in milliseconds: a UDP association with no datagram for this long ends. */
  idleTimeoutMs: number;
  /** The statistics' udp_upstream counters, kept by the UDP associations. */
  udpStats: UdpUpstreamStats;
  now: () => number;
}

export interface TcpFlowRequest {
  inbound: TagProtocol;
  auth: FlowAuth;
  source?: FlowSource;
  target: Endpoint;
}

/** How an inbound answers its client once the flow's fate is known. */
export interface ClientReply {
  blocked(): void;
  failed(failure: FlowFailureError): void;
}

export interface OpenedFlow {
  actor: FlowActor;
  outbound: Outbound;
  dial: DialResult;
}

/**
 * Runs a TCP flow from acceptance to an established outbound: flow.started, the
 * routing decision, the dial, flow.routed. A blocked or failed flow is completed
 * here and yields null; otherwise the caller relays and completes it.
 */
export async function openTcpFlow(env: FlowEnv, req: TcpFlowRequest, reply: ClientReply): Promise<OpenedFlow | null> {
  const actor = env.table.open(
    { network: 'tcp', inbound: req.inbound, source: req.source, target: req.target, mode: env.router.mode.mode, at: env.now() },
    req.auth,
  );
  const decision = env.router.decide(
    routeContext({
      host: req.target.host,
      port: req.target.port,
      network: 'tcp',
      inbound: req.inbound.tag,
      principal: req.auth.principal_key,
    }),
  );
  const { outbound, selection_chain } = env.outbounds.resolve(decision.target);
  const route: FlowRoute = { ...decision, action: 'route', selection_chain };
  if (outbound.kind === 'block') {
    reply.blocked();
    actor.complete(env.now(), { outcome: 'blocked', close_reason: null, failure: null }, route);
    return null;
  }
  let dial: DialResult;
  try {
    dial = await outbound.dial(req.target, { connectTimeoutMs: env.connectTimeoutMs });
  } catch (err) {
    const failure = err instanceof FlowFailureError ? err : dialFailure(err, req.target);
    reply.failed(failure);
    actor.complete(env.now(), { outcome: 'failed', close_reason: 'upstream_error', failure: failure.toFailure() }, route);
    return null;
  }
  if (actor.closeRequest) {
    // Closed (flows.close or shutdown) while the dial was in flight.
    dial.socket.destroy();
    reply.failed(new FlowFailureError('DIAL_FAILED', 'flow closed before the outbound was established', req.target));
    actor.complete(env.now(), { outcome: 'cancelled', close_reason: actor.closeReason, failure: null }, route);
    return null;
  }
  actor.routed(
    env.now(),
    route,
    { outbound: { tag: outbound.tag, protocol: outbound.protocol }, remote: req.target, relay_chain: dial.relay_chain },
    dial.resolved_ip,
  );
  return { actor, outbound, dial };
}
