import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Endpoint } from '../../streams/contract.js';
import { HopNegotiationError } from '../errors/hop-error.js';
import { authority } from '../net/authority.js';
import { statusCodeOf } from '../net/status-line.js';
import { handOver } from './hop-hand-over.js';
import { readResponseHead } from './hop-http-head.js';
import { sendableTarget, type Hop } from './hop.js';

function connectRequest(hop: Hop, dest: Endpoint): string {
  const target = authority(dest);
  const lines = [`CONNECT ${target} HTTP/1.1`, `Host: ${target}`];
  if (hop.username !== undefined && hop.password !== undefined) {
    const token = Buffer.from(`${hop.username}:${hop.password.reveal()}`).toString('base64');
    lines.push(`Proxy-Authorization: Basic ${token}`);
  }
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/**
 * Negotiates an HTTP CONNECT to `dest` with the hop at the other end of `socket`.
 * Bytes that follow the response head belong to the tunnel and are put back on the
 * socket; the count of them is returned so they are not taken for handshake bytes.
 */
export async function negotiateHttp(socket: Socket, hop: Hop, dest: Endpoint): Promise<number> {
  // Refused before a byte goes to the hop: no part of such a target is ever sent.
  if (!sendableTarget(dest)) {
    throw new HopNegotiationError('protocol', 'was not sent a CONNECT: the target cannot be written as a request authority');
  }
  const answer = readResponseHead(socket);
  socket.write(connectRequest(hop, dest));
  const { head, surplus } = await answer;
  const status = statusCodeOf(head);
  if (status === null) throw new HopNegotiationError('protocol', 'answered CONNECT with a malformed status line');
  // The standard reason phrase, not the hop's (statusCodeOf): "407 Proxy Authentication Required".
  const said = STATUS_CODES[status] ? `${status} ${STATUS_CODES[status]}` : String(status);
  // A CONNECT carries no credentials for an origin, so a 401 can only be about the
  // proxy's own: tinyproxy answers wrong Basic credentials with 401 (none with 407).
  if (status === 407 || status === 401) {
    const why = hop.username === undefined ? 'no credentials are configured' : `the credentials of user "${hop.username}" were refused`;
    throw new HopNegotiationError('auth', `answered CONNECT with ${said}: ${why}`);
  }
  if (status < 200 || status > 299) {
    throw new HopNegotiationError('rejected', `answered CONNECT ${authority(dest)} with ${said}`);
  }
  handOver(socket, surplus);
  return surplus.length;
}
