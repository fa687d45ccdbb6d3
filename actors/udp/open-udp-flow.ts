import type { Endpoint, FlowAuth, FlowSource, FlowTraffic, TagProtocol } from '../../streams/contract.js';
import type { Outbound } from '../contracts/outbound.js';
import { TargetRefusedError, dialFailure } from '../errors/flow-failure.js';
import { FlowCancelledError, type FlowActor } from '../flows/flow-actor.js';
import type { FlowEnv } from '../flows/flow-opener.js';
import { BLOCKED, cancelledWhileOpening, failed, refused } from '../flows/flow-result.js';
import { literalIp } from '../net/plain-ip.js';
import { openUdpUpstream } from './udp-outbound.js';
import { routeUdp } from './udp-route.js';
import type { UdpUpstream, UdpUpstreamEvents } from './udp-upstream.js';

export interface UdpFlowRequest {
  inbound: TagProtocol;
  auth: FlowAuth;
  source?: FlowSource;
  /** The first datagram's destination: the flow's target and the route's input. */
  target: Endpoint;
  /** The counters of a flow that ends here: its client's side, as a TCP flow's clientOnlyTraffic. */
  unrelayed: () => FlowTraffic;
  /** Settles when the association has ended (its control connection did): a flow still opening then ends `cancelled` at once. */
  left: Promise<void>;
}

export interface OpenedUdpFlow {
  actor: FlowActor;
  outbound: Outbound;
  upstream: UdpUpstream;
}

/**
 * Runs a UDP association's flow from its first datagram to an open upstream:
 * flow.started, the routing decision, the upstream (socket or hop association),
 * flow.routed. A blocked, failed or cancelled flow is completed here and yields null.
 */
export async function openUdpFlow(env: FlowEnv, req: UdpFlowRequest, events: UdpUpstreamEvents): Promise<OpenedUdpFlow | null> {
  // The node is stopping: see FlowTable.closed.
  if (env.table.closed) return null;
  const actor = env.table.open(
    { network: 'udp', inbound: req.inbound, source: req.source, target: req.target, mode: env.router.mode.mode, at: env.now() },
    req.auth,
  );
  actor.endOpeningOn(req.left);
  const { route, outbound } = await routeUdp(env, req.inbound, req.auth.principal_key, req.target);
  if (outbound.kind === 'block') {
    actor.complete(env.now(), BLOCKED, route, req.unrelayed());
    return null;
  }
  let upstream: UdpUpstream;
  try {
    const opening = openUdpUpstream(outbound, req.target, { timeoutMs: env.connectTimeoutMs, refusePrivate: env.router.blockPrivate }, events);
    upstream = await actor.opening(opening, (late) => late.close());
  } catch (err) {
    if (err instanceof FlowCancelledError) {
      // Closed (flows.close, shutdown, the client's end) while the upstream was being set up.
      actor.complete(env.now(), cancelledWhileOpening(actor), route, req.unrelayed());
      return null;
    }
    if (err instanceof TargetRefusedError) {
      actor.complete(env.now(), refused(err), route, req.unrelayed());
      return null;
    }
    env.udpStats.failed_association_attempts++;
    const failure = dialFailure(err, req.target);
    env.dialFailed?.(route.selection_chain, failure);
    actor.complete(env.now(), failed(failure), route, req.unrelayed());
    return null;
  }
  actor.routed(
    env.now(),
    route,
    { outbound: { tag: outbound.tag, protocol: outbound.protocol }, remote: req.target, relay_chain: upstream.relay_chain },
    upstream.resolved_ip ?? literalIp(req.target.host),
  );
  env.udpStats.created_associations++;
  env.udpStats.active_associations++;
  return { actor, outbound, upstream };
}
