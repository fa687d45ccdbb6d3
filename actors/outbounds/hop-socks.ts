import type { Socket } from 'node:net';
import type { Endpoint } from '../../streams/contract.js';
import { HopNegotiationError } from '../errors/hop-error.js';
import { handOver } from './hop-hand-over.js';
import { sendableTarget, type Hop } from './hop.js';
import { socks5Request } from '../socks5/socks5-client.js';

/**
 * Negotiates a SOCKS5 CONNECT to `dest` with the hop at the other end of `socket`
 * (directly connected, or reached through earlier hops). Bytes that came after the
 * hop's reply belong to the tunnel and are put back on the socket; the count of them
 * is returned so they are not taken for handshake bytes.
 */
export async function negotiateSocks(socket: Socket, hop: Hop, dest: Endpoint, timeoutMs: number): Promise<number> {
  if (!sendableTarget(dest)) {
    throw new HopNegotiationError('protocol', 'was not sent a CONNECT: the target cannot be written as a SOCKS5 address');
  }
  const { surplus } = await socks5Request(socket, hop, 'connect', dest, Math.max(1, timeoutMs));
  handOver(socket, surplus);
  return surplus.length;
}
