import type { Duplex } from 'node:stream';

/** How long a refused client has to read the answer and close its side. */
const LINGER_MS = 2000;

/**
 * Ends a client connection the node refused, `data` its last words. Inbound sockets
 * allow half-open (a relayed client's FIN travels on to the remote), so end() alone
 * keeps the socket until the client's FIN: one that never sends it would hold a
 * descriptor for good. It is destroyed after LINGER_MS, not at once, so that unread
 * bytes from the client cannot turn the close into a reset that loses the answer.
 */
export function endRefused(socket: Duplex, data?: string | Uint8Array): void {
  socket.end(data);
  if (socket.destroyed) return;
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}
