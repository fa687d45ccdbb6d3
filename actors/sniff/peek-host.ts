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
 * Reads with 'readable'/read(), so nothing flows anywhere else meanwhile; the
 * socket is left paused for the relay to pipe.
 */
export function peekHost(socket: Socket, timeoutMs: number): Promise<Peeked> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes: Buffer = Buffer.alloc(0);
    const settle = (host: string | null): void => {
      clearTimeout(timer);
      socket.off('readable', onReadable).off('end', onEnd).off('close', onEnd).off('error', onEnd);
      resolve({ bytes, host });
    };
    const onReadable = (): void => {
      let chunk: Buffer | null;
      while ((chunk = socket.read() as Buffer | null) !== null) chunks.push(chunk);
      if (chunks.length === 0) return;
      bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      chunks.length = 0;
      chunks.push(bytes);
      const outcome = sniffHost(bytes);
      if (outcome.kind !== 'more') settle(outcome.kind === 'host' ? outcome.host : null);
    };
    const onEnd = (): void => settle(null);
    const timer = setTimeout(onEnd, timeoutMs);
    socket.on('readable', onReadable).once('end', onEnd).once('close', onEnd).once('error', onEnd);
  });
}
