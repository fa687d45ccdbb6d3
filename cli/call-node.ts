import { ipcCall } from './ipc-client.js';
import { locateSocket, type SocketFlags } from './socket-path.js';

/** One request to the node the flags point at (`--ipc`, `-c`, or the default socket); resolves with its result. */
export function callNode(flags: SocketFlags, request: Record<string, unknown>): Promise<unknown> {
  const place = locateSocket(flags);
  return ipcCall(place.path, request, place.note);
}
