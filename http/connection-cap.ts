import type http from 'node:http';
import tls from 'node:tls';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { FullWarning } from '../actors/base/full-warning.js';

/**
 * Holds the control plane's connections to `limit`, the way a slowloris cannot keep an
 * operator out: a new connection over the limit closes the oldest idle one (no request
 * under way: none sent yet, a head still trickling, or a keep-alive between requests),
 * and is itself closed only when every held one is busy. Node's own maxConnections
 * closes the newcomer instead, so held idle sockets kept every later request out until
 * their header timeout.
 */
export function capConnections(server: http.Server, limit: number, name: string, log: Logger): void {
  const held = new Set<Socket>();
  // Insertion order is age order: re-adding a socket that went idle again makes it the newest.
  const idle = new Set<Socket>();
  const full = new FullWarning(log, limit, `${name} connections full: closing the oldest idle one for each new one`);
  // Over TLS the request's socket is the TLS one, made at the handshake's end; a handshake that never ends meets handshakeTimeout.
  server.on(server instanceof tls.Server ? 'secureConnection' : 'connection', (socket: Socket) => {
    if (held.size >= limit) {
      const oldest = idle.values().next();
      if (oldest.done) return void socket.destroy();
      full.refused();
      // Forgotten now, not at its 'close': the next newcomer of this tick evicts another.
      held.delete(oldest.value);
      idle.delete(oldest.value);
      oldest.value.destroy();
    } else full.admitted();
    held.add(socket);
    idle.add(socket);
    socket.once('close', () => {
      held.delete(socket);
      idle.delete(socket);
    });
  });
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = req.socket;
    idle.delete(socket);
    res.once('close', () => {
      if (held.has(socket) && !socket.destroyed) idle.add(socket);
    });
  });
  // A WebSocket leaves HTTP for good: busy until it closes.
  server.on('upgrade', (req: http.IncomingMessage) => idle.delete(req.socket));
}
