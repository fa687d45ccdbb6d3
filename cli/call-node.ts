import { ipcCall } from './ipc-client.js';
import { resolveSocketPath, type SocketFlags } from './socket-path.js';

/** One request to the node the flags point at (`--ipc`, `-c`, or the default socket); resolves with its result. */
export function callNode(flags: SocketFlags, request: Record<string, unknown>): Promise<unknown> {
  return ipcCall(resolveSocketPath(flags), request);
}
