import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { openTcpFlow } from '../flows/flow-opener.js';
import { relayTunnel } from '../flows/tunnel-relay.js';
import { socketClosed } from '../net/socket-closed.js';
import { endWithStatus, failureStatus, PROXY_AUTHENTICATE } from './http-replies.js';
import type { InboundEnv } from './inbound-env.js';
import { proxyAuth } from './http-proxy-auth.js';
import { authorityTarget } from './http-target.js';
import { clientShare } from './client-share.js';
import { peerOf } from './tcp-listener.js';

/** HTTP CONNECT: authenticate, open the flow, answer 200 and relay the tunnel. */
export async function handleConnect(env: InboundEnv, req: IncomingMessage, socket: Socket, head: Buffer): Promise<void> {
  socket.on('error', () => socket.destroy());
  const target = authorityTarget(req.url);
  if (!target) return endWithStatus(socket, 400);
  const auth = proxyAuth(env, req);
  if (!auth) return endWithStatus(socket, 407, PROXY_AUTHENTICATE);
  // The tunnel is the connection's last exchange: its counts start after the requests before it.
  const { span } = clientShare(socket);
  // Bytes the client sent right after the CONNECT head belong to the tunnel (and are its first bytes to sniff).
  if (head.length > 0) socket.unshift(head);
  const flow = await openTcpFlow(
    env.flows,
    { inbound: env.inbound, auth, source: peerOf(socket), target, client: socket, clientSpan: span, left: socketClosed(socket) },
    {
      succeeded: () => socket.write('HTTP/1.1 200 Connection Established\r\n\r\n'),
      blocked: () => endWithStatus(socket, 403),
      failed: (f) => endWithStatus(socket, failureStatus(f)),
    },
  );
  if (!flow) return;
  relayTunnel(socket, flow, env.flows.now, span);
}
