import type { Socket } from 'node:net';

/**
 * Resolves when `socket` has closed, at once when it already has. A client that only
 * half-closes (FIN) has not closed it: inbound sockets allow half-open, and its FIN is
 * relayed like any end of the client's data.
 */
export function socketClosed(socket: Socket): Promise<void> {
  if (socket.closed) return Promise.resolve();
  return new Promise((resolve) => socket.once('close', () => resolve()));
}
