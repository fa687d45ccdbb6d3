import pino, { type Logger } from 'pino';
import { LogTap } from './log-tap.js';

/** Paths pino blanks out wherever they appear in a log object: secrets never reach a log line. */
const REDACT = [
  'api_key',
  'password',
  'token',
  'authorization',
  'proxy-authorization',
  '*.api_key',
  '*.password',
  '*.token',
  '*.authorization',
  '*.headers.authorization',
  '*.headers["proxy-authorization"]',
];

export interface NodeLogger {
  log: Logger;
  /** Where log lines go: the file, or `stdout`. */
  log_files: string[];
  /** The same lines, for live readers. */
  tap: LogTap;
}

/** One logger for the node, handed to each room; JSON lines to a file or stdout. */
export function createLogger(opts: { level: string; file?: string | undefined }): NodeLogger {
  const destination = opts.file
    ? pino.destination({ dest: opts.file, mkdir: true, sync: false })
    : pino.destination({ fd: 1, sync: false });
  // A log file that cannot be written (disk full, directory removed) costs log lines,
  // never the node: without a listener the stream's error would end the process.
  destination.on('error', () => undefined);
  const tap = new LogTap();
  const log = pino({ level: opts.level, redact: { paths: REDACT, censor: '[redacted]' }, hooks: { streamWrite: tap.hook } }, destination);
  return { log, log_files: [opts.file ?? 'stdout'], tap };
}
