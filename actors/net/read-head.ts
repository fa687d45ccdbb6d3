import type { Socket } from 'node:net';

const EMPTY: Buffer = Buffer.alloc(0);

/**
 * Reads a client's first bytes, the 'data' chunks joined, until `decide` returns a
 * result for them; when the client ends, closes, fails or sends nothing more for
 * `timeoutMs` first, `ended` makes the result of what came. Flowing mode, not
 * 'readable' and read(), which cost two next-tick turns per chunk in Node's streams.
 * The socket is left paused with none of these listeners: what follows waits for
 * whoever reads next.
 */
export function readHead<T>(
  socket: Socket,
  timeoutMs: number,
  decide: (bytes: Buffer) => T | undefined,
  ended: (bytes: Buffer) => T,
): Promise<T> {
  return new Promise((resolve) => {
    let bytes: Buffer = EMPTY;
    const settle = (result: T): void => {
      clearTimeout(timer);
      socket.off('data', onData).off('end', onEnd).off('close', onEnd).off('error', onEnd);
      socket.pause();
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      bytes = bytes.length === 0 ? chunk : Buffer.concat([bytes, chunk]);
      const result = decide(bytes);
      if (result !== undefined) settle(result);
    };
    const onEnd = (): void => settle(ended(bytes));
    const timer = setTimeout(onEnd, timeoutMs);
    socket.on('data', onData).once('end', onEnd).once('close', onEnd).once('error', onEnd);
    // A socket paused before (after a handshake) does not flow by itself.
    socket.resume();
  });
}
