import type { Socket } from 'node:net';
import { sniffHost } from './sniff-host.js';

export interface Peeked {
  /** Everything read off the client while sniffing; it belongs to the remote, first. */
  bytes: Buffer;
  /** The sniffed host name, if the bytes carried one. */
  host: string | null;
}

/**
 * Reads the client's first bytes until they name a host, show they never will, the
 * client ends, or `timeoutMs` passes (a protocol where the server speaks first).
 * Reads 'data' chunks, as the SOCKS5 handshake does, and leaves the socket paused
 * once settled: what arrives later waits for the relay, which resumes it.
 */
export function peekHost(socket: Socket, timeoutMs: number): Promise<Peeked> {
  return new Promise((resolve) => {
    let bytes: Buffer = Buffer.alloc(0);
    const settle = (host: string | null): void => {
      clearTimeout(timer);
      socket.off('data', onData).off('end', onEnd).off('close', onEnd).off('error', onEnd);
      socket.pause();
      resolve({ bytes, host });
    };
    const onData = (chunk: Buffer): void => {
      bytes = bytes.length === 0 ? chunk : Buffer.concat([bytes, chunk]);
      const outcome = sniffHost(bytes);
      if (outcome.kind !== 'more') settle(outcome.kind === 'host' ? outcome.host : null);
    };
    const onEnd = (): void => settle(null);
    const timer = setTimeout(onEnd, timeoutMs);
    socket.on('data', onData).once('end', onEnd).once('close', onEnd).once('error', onEnd);
    socket.resume();
  });
}
