import pino, { type Logger } from 'pino';
import { LogTap } from './log-tap.js';
import { prettyLine } from './pretty-line.js';

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

export type LogFormat = 'json' | 'pretty';

/**
 * One logger for the node, handed to each room: JSON lines to a file or stdout, or on
 * stdout with `format: 'pretty'` lines for a person (prettyLine). Live readers (the
 * tap) get JSON either way; a log file is always JSON.
 */
export function createLogger(opts: { level: string; file?: string | undefined; format?: LogFormat }): NodeLogger {
  const destination = opts.file
    ? pino.destination({ dest: opts.file, mkdir: true, sync: false })
    : pino.destination({ fd: 1, sync: false });
  // A log file that cannot be written (disk full, directory removed) costs log lines,
  // never the node: without a listener the stream's error would end the process.
  destination.on('error', () => undefined);
  const tap = new LogTap();
  const pretty = opts.format === 'pretty' && !opts.file;
  const stream = pretty ? { write: (line: string) => destination.write(prettyLine(line)) } : destination;
  const log = pino({ level: opts.level, redact: { paths: REDACT, censor: '[redacted]' }, hooks: { streamWrite: tap.hook } }, stream);
  return { log, log_files: [opts.file ?? 'stdout'], tap };
}
