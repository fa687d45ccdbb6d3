import type { Duplex } from 'node:stream';
import { ProbeError } from './probe-error.js';

/** A status line longer than this is not one an HTTP server sends. */
const MAX_STATUS_LINE = 1024;

/** Sends `request` on `stream` and resolves with the status code of the response's first line. */
export function readStatusCode(stream: Duplex, request: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let head = '';
    const settle = (outcome: () => void): void => {
      stream.off('data', onData).off('end', onEnd).off('error', onError);
      stream.pause();
      outcome();
    };
    const onData = (chunk: Buffer): void => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n');
      if (end === -1) {
        if (head.length > MAX_STATUS_LINE) settle(() => reject(new ProbeError('PROBE_BAD_RESPONSE', 'no HTTP status line')));
        return;
      }
      const match = /^HTTP\/\d(?:\.\d)? (\d{3})(?: |$)/.exec(head.slice(0, end));
      settle(() =>
        match ? resolve(Number(match[1])) : reject(new ProbeError('PROBE_BAD_RESPONSE', 'not an HTTP status line')),
      );
    };
    const onEnd = (): void =>
      settle(() => reject(new ProbeError('PROBE_CLOSED', 'connection closed before the HTTP status line')));
    const onError = (err: NodeJS.ErrnoException): void =>
      settle(() => reject(new ProbeError('PROBE_CLOSED', `connection failed before the HTTP status line: ${err.code ?? err.message}`)));
    stream.on('data', onData).on('end', onEnd).on('error', onError);
    stream.write(request);
  });
}
