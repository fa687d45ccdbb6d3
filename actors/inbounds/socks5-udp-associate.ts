import type { Socket } from 'node:net';
import { BLOCKED } from '../flows/flow-result.js';
import type { InboundEnv } from './inbound-env.js';
import { SOCKS5_REPLY, writeSocks5Reply, type Socks5Request } from '../socks5/socks5-handshake.js';
import { peerOf } from './tcp-listener.js';
import { ClientGate } from '../udp/client-gate.js';
import { bindRelaySocket, type RelaySocket } from '../udp/relay-socket.js';
import { UdpAssociation } from '../udp/udp-association.js';
import { routeUdp } from '../udp/udp-route.js';

/**
 * Answers a SOCKS5 UDP ASSOCIATE. The request's DST is where the client will send
 * from, not a destination, so the route proper is decided on the first datagram. The
 * command itself is refused (REP notAllowed, flow `blocked` with DST as its target)
 * when the rules block UDP before any destination is known: a rule on network,
 * inbound or principal, the global mode, or `final`.
 */
export async function handleUdpAssociate(env: InboundEnv, control: Socket, request: Socks5Request): Promise<void> {
  const peer = peerOf(control);
  if (!peer || control.localAddress === undefined) {
    control.destroy();
    return;
  }
  const flows = env.flows;
  const { route, outbound } = await routeUdp(flows, env.inbound, request.auth.principal_key, request.target);
  if (outbound.kind === 'block') {
    writeSocks5Reply(control, SOCKS5_REPLY.notAllowed);
    control.end();
    const actor = flows.table.open(
      { network: 'udp', inbound: env.inbound, source: peer, target: request.target, mode: flows.router.mode.mode, at: flows.now() },
      request.auth,
    );
    actor.complete(flows.now(), BLOCKED, route);
    return;
  }
  let relay: RelaySocket;
  try {
    relay = await bindRelaySocket(control.localAddress);
  } catch (err) {
    env.log.warn({ err }, 'udp relay socket could not be bound');
    writeSocks5Reply(control, SOCKS5_REPLY.generalFailure);
    control.end();
    return;
  }
  if (control.destroyed) {
    // The client left while the socket was being bound.
    relay.socket.close();
    return;
  }
  // Listening before the reply goes out: the client may send at once.
  new UdpAssociation(env, { control, relay: relay.socket, gate: new ClientGate(peer.ip, request.target), auth: request.auth, source: peer });
  writeSocks5Reply(control, SOCKS5_REPLY.succeeded, relay.bound);
}
