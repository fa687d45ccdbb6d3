import type { Socket } from 'node:net';
import { readHead } from '../net/read-head.js';
import { sniffHost } from './sniff-host.js';

export interface Peeked {
  /** Everything read off the client while sniffing; it belongs to the remote, first. */
  bytes: Buffer;
  /** The sniffed host name, if the bytes carried one. */
  host: string | null;
}

/**
 * Reads the client's first bytes until they name a host, show they never will, the
 * client ends, or `timeoutMs` passes (a protocol where the server speaks first). The
 * socket is left paused once settled: what arrives later waits for the relay, which
 * resumes it.
 */
export function peekHost(socket: Socket, timeoutMs: number): Promise<Peeked> {
  return readHead<Peeked>(
    socket,
    timeoutMs,
    (bytes) => {
      const outcome = sniffHost(bytes);
      return outcome.kind === 'more' ? undefined : { bytes, host: outcome.kind === 'host' ? outcome.host : null };
    },
    (bytes) => ({ bytes, host: null }),
  );
}
