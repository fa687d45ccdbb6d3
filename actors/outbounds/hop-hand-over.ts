import type { Socket } from 'node:net';

function noop(): void {}

/**
 * Leaves a negotiated socket as a fresh one: not flowing, nothing lost, with the bytes
 * read past the handshake put back in front. Adding a 'readable' listener stops the
 * flow; removing the last one (with no 'data' listener) returns the stream to its
 * initial mode, so the next reader (pipe, http.request, the next hop) starts it as
 * usual. An explicit pause() would stall readers that only add a 'data' listener.
 */
export function handOver(socket: Socket, surplus: Buffer): void {
  socket.on('readable', noop);
  if (surplus.length > 0) socket.unshift(surplus);
  socket.removeListener('readable', noop);
}
