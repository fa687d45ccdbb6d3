import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { readHead } from '../net/read-head.js';
import { handleHttp } from './http-session.js';
import type { InboundEnv } from './inbound-env.js';
import { handleSocks5 } from './socks5-session.js';

const SOCKS5_VERSION = 0x05;

/** SOCKS5 and HTTP on one port, told apart by the client's first byte. */
export async function handleMixed(env: InboundEnv, http: Server, socket: Socket): Promise<void> {
  const first = await firstChunk(socket, env.handshakeTimeoutMs);
  if (!first) {
    socket.destroy();
    return;
  }
  socket.unshift(first);
  if (first[0] === SOCKS5_VERSION) await handleSocks5(env, socket);
  else {
    handleHttp(http, socket);
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
