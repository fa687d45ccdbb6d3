import type { Socket } from 'node:net';
import { HopNegotiationError } from './hop-error.js';

/** Largest CONNECT response head accepted from a hop, in bytes. */
export const MAX_HEAD_BYTES = 16 * 1024;

const HEAD_END = Buffer.from('\r\n\r\n');

export interface ResponseHead {
  /** The head up to and including the blank line, as latin1 text. */
  head: string;
  /** Bytes that arrived after the head: the start of the tunnel's payload. */
  surplus: Buffer;
}

/** Reads exactly one response head from `socket`, bounded by MAX_HEAD_BYTES. */
export function readResponseHead(socket: Socket): Promise<ResponseHead> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const cleanup = (): void => {
      socket.removeListener('data', onData);
      socket.removeListener('end', onEnd);
      socket.removeListener('close', onEnd);
      socket.removeListener('error', onError);
    };
    const fail = (err: HopNegotiationError): void => {
      cleanup();
      reject(err);
    };
    function onData(chunk: Buffer): void {
      // Search from just before the new chunk: the terminator may straddle two chunks.
      const from = Math.max(0, buffered.length - (HEAD_END.length - 1));
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf(HEAD_END, from);
      if (end === -1 || end + HEAD_END.length > MAX_HEAD_BYTES) {
        if (buffered.length >= MAX_HEAD_BYTES) {
          fail(new HopNegotiationError('protocol', `sent a CONNECT response head over ${MAX_HEAD_BYTES} bytes`));
        }
        return;
      }
      // Stop the flow now: the stream would otherwise go on emitting buffered chunks
      // with no listener left, and they would be lost.
      socket.pause();
      cleanup();
      const split = end + HEAD_END.length;
      resolve({ head: buffered.subarray(0, split).toString('latin1'), surplus: buffered.subarray(split) });
    }
    function onEnd(): void {
      fail(new HopNegotiationError('closed', 'closed the connection before answering CONNECT'));
    }
    function onError(err: NodeJS.ErrnoException): void {
      fail(new HopNegotiationError('closed', `broke the connection before answering CONNECT: ${err.code ?? err.message}`));
    }
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('close', onEnd);
    socket.once('error', onError);
  });
}

const STATUS_LINE = /^HTTP\/1\.[01] (\d{3})(?: [^\r\n]*)?$/;

/**
 * The status code of a response head, or null when its first line is not an HTTP/1.x
 * status line. The reason phrase is not kept: it is the hop's own text, which may
 * echo what it was sent (the Proxy-Authorization), and messages go to events and logs.
 */
export function parseStatus(head: string): number | null {
  const match = STATUS_LINE.exec(head.slice(0, head.indexOf('\r\n')));
  return match ? Number(match[1]) : null;
}
