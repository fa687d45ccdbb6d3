import type { Duplex } from 'node:stream';

const EMPTY: Buffer = Buffer.alloc(0);

/**
 * Reads a peer's first bytes, the 'data' chunks joined, until `decide` returns a
 * result for them; when the peer ends, closes, fails (`err`) or sends nothing more for
 * `timeoutMs` (Infinity: no bound) first, `ended` makes the result of what came.
 * Flowing mode, not 'readable' and read(), which cost two next-tick turns per chunk in
 * Node's streams. The stream is left paused with none of these listeners: what
 * follows waits for whoever reads next.
 */
export function readHead<T>(
  stream: Duplex,
  timeoutMs: number,
  decide: (bytes: Buffer) => T | undefined,
  ended: (bytes: Buffer, err?: NodeJS.ErrnoException) => T,
): Promise<T> {
  return new Promise((resolve) => {
    let bytes: Buffer = EMPTY;
    const settle = (result: T): void => {
      clearTimeout(timer);
      stream.off('data', onData).off('end', onEnd).off('close', onEnd).off('error', onError);
      stream.pause();
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      bytes = bytes.length === 0 ? chunk : Buffer.concat([bytes, chunk]);
      const result = decide(bytes);
      if (result !== undefined) settle(result);
    };
    const onEnd = (): void => settle(ended(bytes));
    const onError = (err: NodeJS.ErrnoException): void => settle(ended(bytes, err));
    const timer = timeoutMs === Infinity ? undefined : setTimeout(onEnd, timeoutMs);
    stream.on('data', onData).once('end', onEnd).once('close', onEnd).once('error', onError);
    // A stream paused before (after a handshake) does not flow by itself.
    stream.resume();
  });
}
