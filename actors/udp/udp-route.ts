import type { Endpoint, FlowRoute, TagProtocol } from '../../streams/contract.js';
import type { Outbound } from '../contracts/outbound.js';
import type { FlowEnv } from '../flows/flow-opener.js';
import { routeContext } from '../router/router.js';

export interface UdpRoute {
  route: FlowRoute;
  outbound: Outbound;
}

/**
 * The routing decision for UDP to `target`: the rules see network `udp`. A name
 * target is not resolved for ip_cidr rules (datagrams go to any destination once the
 * first one routed the association; docs/pre-routing.md).
 */
export async function routeUdp(env: FlowEnv, inbound: TagProtocol, principal: string | null, target: Endpoint): Promise<UdpRoute> {
  const decision = await env.router.decide(
    routeContext({ host: target.host, port: target.port, network: 'udp', inbound: inbound.tag, principal }),
  );
  const { outbound, selection_chain } = env.outbounds.resolve(decision.target);
  return { route: { ...decision, action: 'route', selection_chain }, outbound };
}
