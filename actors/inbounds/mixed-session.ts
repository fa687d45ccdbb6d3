import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { readHead } from '../net/read-head.js';
import { handleHttp } from './http-session.js';
import type { InboundEnv } from './inbound-env.js';
import { handleSocks5 } from './socks5-session.js';

const SOCKS5_VERSION = 0x05;

/**
 * SOCKS5 and HTTP on one port, told apart by the client's first byte. The handshake
 * timeout counts from the accept for both steps: waiting for the first byte takes from
 * the time the protocol's own handshake has.
 */
export async function handleMixed(env: InboundEnv, http: Server, socket: Socket): Promise<void> {
  const deadline = Date.now() + env.handshakeTimeoutMs;
  const first = await firstChunk(socket, env.handshakeTimeoutMs);
  const left = deadline - Date.now();
  if (!first || left <= 0) {
    socket.destroy();
    return;
  }
  socket.unshift(first);
  if (first[0] === SOCKS5_VERSION) await handleSocks5(env, socket, left);
  else {
    handleHttp(http, socket, left);
    // The HTTP server reads through 'data' listeners, which do not start a paused socket.
    socket.resume();
  }
}

/**
 * The client's first chunk, with the socket paused right after it, so nothing that
 * follows flows past; the caller puts the chunk back. null when the client ends or
 * stays silent.
 */
function firstChunk(socket: Socket, timeoutMs: number): Promise<Buffer | null> {
  return readHead<Buffer | null>(socket, timeoutMs, (bytes) => bytes, () => null);
}
