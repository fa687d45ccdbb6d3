import type { Socket } from 'node:net';
import type { FailureCode } from '../errors/failure-codes.js';
import { openTcpFlow } from '../flows/flow-opener.js';
import { endRefused } from '../net/end-refused.js';
import { socketClosed } from '../net/socket-closed.js';
import { noteAuthFailure } from './auth-failure.js';
import { HandshakeError } from '../socks5/handshake-error.js';
import { relayTunnel } from '../flows/tunnel-relay.js';
import { handleUdpAssociate } from './socks5-udp-associate.js';
import type { InboundEnv } from './inbound-env.js';
import { acceptSocks5, SOCKS5_REPLY, writeSocks5Reply } from '../socks5/socks5-handshake.js';
import { peerOf } from './tcp-listener.js';

const REPLY_FOR_FAILURE: Partial<Record<FailureCode, number>> = {
  DIAL_REFUSED: SOCKS5_REPLY.connectionRefused,
  DIAL_UNREACHABLE: SOCKS5_REPLY.hostUnreachable,
  DNS_FAILED: SOCKS5_REPLY.hostUnreachable,
  DIAL_TIMEOUT: SOCKS5_REPLY.ttlExpired,
  HOP_TIMEOUT: SOCKS5_REPLY.ttlExpired,
};

/** One SOCKS5 client connection: handshake (within `timeoutMs`), flow, reply, relay. */
export async function handleSocks5(env: InboundEnv, socket: Socket, timeoutMs = env.handshakeTimeoutMs): Promise<void> {
  let request;
  try {
    request = await acceptSocks5(socket, { users: env.users, timeoutMs });
  } catch (err) {
    if (err instanceof HandshakeError && err.code === 'SOCKS_AUTH_FAILED') noteAuthFailure(env, peerOf(socket), err.username ?? null, err.usernameLength);
    else env.log.debug({ err, peer: peerOf(socket) }, 'socks5 handshake rejected');
    endRefused(socket);
    return;
  }
  if (request.command === 'udp_associate') {
    await handleUdpAssociate(env, socket, request);
    return;
  }
  const fail = (rep: number): void => {
    writeSocks5Reply(socket, rep);
    endRefused(socket);
  };
  const flow = await openTcpFlow(
    env.flows,
    { inbound: env.inbound, auth: request.auth, source: peerOf(socket), target: request.target, client: socket, left: socketClosed(socket) },
    {
      // Before routing (to sniff) there is no outbound socket yet: the bound address is 0.0.0.0:0.
      succeeded: (remote) =>
        writeSocks5Reply(socket, SOCKS5_REPLY.succeeded, { host: remote?.localAddress ?? '0.0.0.0', port: remote?.localPort ?? 0 }),
      blocked: () => fail(SOCKS5_REPLY.notAllowed),
      failed: (failure) => fail(REPLY_FOR_FAILURE[failure.code] ?? SOCKS5_REPLY.generalFailure),
    },
  );
  if (!flow) return;
  relayTunnel(socket, flow, env.flows.now);
}
