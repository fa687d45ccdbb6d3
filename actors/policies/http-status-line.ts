import type { Duplex } from 'node:stream';
import { readHead } from '../net/read-head.js';
import { statusCodeOf } from '../net/status-line.js';
import { ProbeError } from './probe-error.js';

/** A status line longer than this is not one an HTTP server sends. */
const MAX_STATUS_LINE = 1024;

const CRLF = Buffer.from('\r\n');

/** Sends `request` on `stream` and resolves with the status code of the response's first line. */
export async function readStatusCode(stream: Duplex, request: string): Promise<number> {
  const read = readHead<number | ProbeError>(
    stream,
    Infinity,
    (bytes) => {
      const end = bytes.indexOf(CRLF);
      if (end === -1) return bytes.length > MAX_STATUS_LINE ? new ProbeError('PROBE_BAD_RESPONSE', 'no HTTP status line') : undefined;
      return statusCodeOf(bytes.toString('latin1', 0, end)) ?? new ProbeError('PROBE_BAD_RESPONSE', 'not an HTTP status line');
    },
    (_bytes, err) =>
      new ProbeError(
        'PROBE_CLOSED',
        err === undefined
          ? 'connection closed before the HTTP status line'
          : `connection failed before the HTTP status line: ${err.code ?? err.message}`,
      ),
  );
  stream.write(request);
  const status = await read;
  if (status instanceof ProbeError) throw status;
  return status;
}
