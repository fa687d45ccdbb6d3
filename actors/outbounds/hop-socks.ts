import type { Socket } from 'node:net';
import { setImmediate as nextImmediate } from 'node:timers/promises';
import { SocksClient, type SocksProxy } from 'socks';
import type { Endpoint } from '../../streams/contract.js';
import { HopNegotiationError } from './hop-error.js';
import { handOver } from './hop-hand-over.js';
import { sendableTarget, type Hop } from './hop.js';

// The socks package reports failures as fixed message strings (its ERRORS table).
const SOCKET_CLOSED = 'Socket closed';
const TIMED_OUT = 'Proxy connection timed out';
const AUTH_FAILED = 'Socks5 Authentication failed';
const NO_ACCEPTED_AUTH = 'Received invalid Socks5 initial handshake (no accepted authentication type)';
const REJECTED = 'Socks5 proxy rejected connection - ';

const REPLY_TEXT: Record<string, string> = {
  Failure: 'general SOCKS server failure',
  NotAllowed: 'connection not allowed by ruleset',
  NetworkUnreachable: 'network unreachable',
  HostUnreachable: 'host unreachable',
  ConnectionRefused: 'connection refused',
  TTLExpired: 'TTL expired',
  CommandNotSupported: 'command not supported',
  AddressNotSupported: 'address type not supported',
};

function translate(err: unknown, hop: Hop, dest: Endpoint): HopNegotiationError {
  const message = err instanceof Error ? err.message : String(err);
  if (message === SOCKET_CLOSED) return new HopNegotiationError('closed', 'closed the connection during the SOCKS5 handshake');
  if (message === TIMED_OUT) return new HopNegotiationError('timeout', 'did not finish the SOCKS5 handshake in time');
  if (message === AUTH_FAILED) return new HopNegotiationError('auth', `rejected the username/password of user "${hop.username ?? ''}"`);
  if (message === NO_ACCEPTED_AUTH) {
    return new HopNegotiationError(
      'auth',
      hop.username === undefined
        ? 'requires authentication and no username/password is configured'
        : 'accepts neither no-auth nor username/password authentication',
    );
  }
  if (message.startsWith(REJECTED)) {
    const reply = message.slice(REJECTED.length);
    const text = REPLY_TEXT[reply] ?? `reply code ${reply}`;
    return new HopNegotiationError('rejected', `answered CONNECT ${dest.host}:${dest.port} with: ${text}`, reply);
  }
  if (message.startsWith('Received invalid Socks5')) return new HopNegotiationError('protocol', message.replace(/^Received /, 'sent an '));
  // A socket error (ECONNRESET and the like) during the handshake.
  return new HopNegotiationError('closed', `failed during the SOCKS5 handshake: ${message}`);
}

/**
 * Negotiates a SOCKS5 CONNECT to `dest` with the hop at the other end of `socket`
 * (directly connected, or reached through earlier hops). The error of the socks package
 * is never passed on: it holds the proxy options, password included.
 */
export async function negotiateSocks(socket: Socket, hop: Hop, dest: Endpoint, timeoutMs: number): Promise<number> {
  if (!sendableTarget(dest)) {
    throw new HopNegotiationError('protocol', 'was not sent a CONNECT: the target cannot be written as a SOCKS5 address');
  }
  const proxy: SocksProxy = { host: hop.server, port: hop.port, type: 5 };
  if (hop.username !== undefined && hop.password !== undefined) {
    proxy.userId = hop.username;
    proxy.password = hop.password.reveal();
  }
  // The package re-emits bytes read past its reply and resumes the socket one
  // setImmediate after it resolves; collect them across that turn, then hand over.
  const surplus: Buffer[] = [];
  const collect = (chunk: Buffer): void => {
    surplus.push(chunk);
  };
  // Sockets are half-open (allowHalfOpen) and the package waits for 'close' only: a
  // hop's FIN during the handshake would otherwise go unnoticed until the deadline.
  const onEnd = (): void => {
    socket.destroy();
  };
  socket.once('end', onEnd);
  try {
    await SocksClient.createConnection({
      proxy,
      destination: { host: dest.host, port: dest.port },
      command: 'connect',
      existing_socket: socket,
      timeout: Math.max(1, timeoutMs),
    });
  } catch (err) {
    throw translate(err, hop, dest);
  } finally {
    socket.removeListener('end', onEnd);
  }
  socket.on('data', collect);
  await nextImmediate();
  socket.removeListener('data', collect);
  const rest = Buffer.concat(surplus);
  handOver(socket, rest);
  return rest.length;
}
