import type { Socket } from 'node:net';
import type { Endpoint } from '../../streams/contract.js';
import type { DialResult } from '../contracts/outbound.js';
import { literalIp } from '../net/plain-ip.js';
import { refuseUnsendable, refuseUnspecified } from './dialable-target.js';
import { firstHopFailure, negotiationFailure } from './hop-failure.js';
import { negotiateHttp } from './hop-http.js';
import { negotiateSocks } from './hop-socks.js';
import { hopEndpoint, relayHopOf, type Hop } from './hop.js';
import { tcpConnect } from './tcp-connect.js';

function negotiate(socket: Socket, hop: Hop, dest: Endpoint, remainingMs: number): Promise<number> {
  return hop.protocol === 'socks' ? negotiateSocks(socket, hop, dest, remainingMs) : negotiateHttp(socket, hop, dest);
}

function ignore(): void {}

/**
 * Dials `target` through `hops` in order: a TCP connection to the first hop, then over
 * it each hop is asked to connect to the next hop's server:port, the last one to the
 * target. The whole negotiation is bounded by `timeoutMs`. The handshake counts are
 * everything read and written on the socket except the tunnel bytes that arrived with
 * the last hop's answer.
 */
export async function dialHops(hops: readonly Hop[], target: Endpoint, timeoutMs: number): Promise<DialResult> {
  const first = hops[0];
  if (!first) throw new RangeError('a chain needs at least one hop');
  refuseUnspecified(target);
  refuseUnsendable(target);
  const deadline = Date.now() + timeoutMs;
  const firstServer = hopEndpoint(first);
  let socket: Socket;
  try {
    socket = await tcpConnect(firstServer, timeoutMs);
  } catch (err) {
    throw firstHopFailure(err, first);
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    socket.destroy();
  }, Math.max(0, deadline - Date.now()));
  // Between two hops no negotiator listens; an error then must not go unhandled.
  socket.on('error', ignore);
  let index = 0;
  let surplus = 0;
  try {
    for (; index < hops.length; index++) {
      const next = hops[index + 1];
      const dest = next ? hopEndpoint(next) : target;
      surplus = await negotiate(socket, hops[index]!, dest, deadline - Date.now());
    }
    // The deadline may fire while the last answer is being handed over.
    if (timedOut) throw new Error('timed out');
  } catch (err) {
    socket.destroy();
    throw negotiationFailure(err, hops, Math.min(index, hops.length - 1), timedOut);
  } finally {
    clearTimeout(timer);
    socket.removeListener('error', ignore);
  }
  const result: DialResult = {
    socket,
    relay_chain: hops.map(relayHopOf),
    handshake: { rx: socket.bytesRead - surplus, tx: socket.bytesWritten },
  };
  // The last hop resolves a name target: the node knows the target's address only when
  // it is one (the first hop's address is the path's, not the target's).
  const resolvedIp = literalIp(target.host);
  if (resolvedIp) result.resolved_ip = resolvedIp;
  return result;
}
