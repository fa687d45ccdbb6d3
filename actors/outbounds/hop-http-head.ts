import type { Socket } from 'node:net';
import { readHead } from '../net/read-head.js';
import { HopNegotiationError } from '../errors/hop-error.js';

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
export async function readResponseHead(socket: Socket): Promise<ResponseHead> {
  let searched = 0;
  const read = await readHead<ResponseHead | HopNegotiationError>(
    socket,
    Infinity,
    (bytes) => {
      // Search from just before the new bytes: the terminator may straddle two chunks.
      const end = bytes.indexOf(HEAD_END, Math.max(0, searched - (HEAD_END.length - 1)));
      searched = bytes.length;
      if (end === -1 || end + HEAD_END.length > MAX_HEAD_BYTES) {
        if (bytes.length < MAX_HEAD_BYTES) return undefined;
        return new HopNegotiationError('protocol', `sent a CONNECT response head over ${MAX_HEAD_BYTES} bytes`);
      }
      const split = end + HEAD_END.length;
      return { head: bytes.subarray(0, split).toString('latin1'), surplus: bytes.subarray(split) };
    },
    (_bytes, err) =>
      err === undefined
        ? new HopNegotiationError('closed', 'closed the connection before answering CONNECT')
        : new HopNegotiationError('closed', `broke the connection before answering CONNECT: ${err.code ?? err.message}`),
  );
  if (read instanceof HopNegotiationError) throw read;
  return read;
}
