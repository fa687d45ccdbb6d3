import { connect, isIPv4, type LookupFunction, type Socket } from 'node:net';
import type { Endpoint } from '../../streams/contract.js';
import { FlowFailureError, dialFailure } from '../errors/flow-failure.js';

/**
 * Opens a TCP connection with a deadline, resolving a name with `lookup` when given.
 * Half-open is allowed so a client's FIN is passed on without cutting the other
 * direction short.
 */
export function tcpConnect(remote: Endpoint, timeoutMs: number, lookup?: LookupFunction): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: remote.host, port: remote.port, allowHalfOpen: true, noDelay: true, ...(lookup && { lookup }) });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new FlowFailureError('DIAL_TIMEOUT', `connect to ${remote.host}:${remote.port} timed out after ${timeoutMs} ms`, remote));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(dialFailure(err, remote));
    });
  });
}

/**
 * The address a socket from tcpConnect(remote) reached. An IPv4 literal is its own
 * answer (isIPv4 accepts only the dotted-decimal form getpeername reports), which saves
 * a getpeername per connection; anything else asks the socket. A name is not taken from
 * the 'lookup' event: with autoSelectFamily (Node 20's default) it fires once per
 * resolved address, before one of them is chosen.
 */
export function connectedIp(socket: Socket, remote: Endpoint): string | undefined {
  return isIPv4(remote.host) ? remote.host : socket.remoteAddress;
}
