import pino, { type Logger } from 'pino';
import { LogTap } from './log-tap.js';
import { messageOf, WriteSpell } from '../files/write-spell.js';
import { prettyLine } from './pretty-line.js';

/** Log bytes kept in memory while the log cannot be written; lines past them are dropped. */
const LOG_BUFFER_BYTES = 16 * 1024 * 1024;

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
  const where = opts.file ?? 'stdout';
  const destination = opts.file
    ? pino.destination({ dest: opts.file, mkdir: true, sync: false, maxLength: LOG_BUFFER_BYTES })
    : pino.destination({ fd: 1, sync: false, maxLength: LOG_BUFFER_BYTES });
  // A log file that cannot be written (disk full, directory removed) costs log lines,
  // never the node: without a listener the stream's error would end the process. The
  // lines wait in memory (up to LOG_BUFFER_BYTES) and go out with the next write that
  // succeeds; the spell is told on stderr, once at its start and once at its end.
  const spell = new WriteSpell(
    (problem) => process.stderr.write(`weir: ${problem}\n`),
    (message) => process.stderr.write(`weir: ${message}\n`),
  );
  destination.on('error', (err: unknown) => spell.failed(`the log (${where}) cannot be written (${messageOf(err)}); lines wait in memory, up to ${LOG_BUFFER_BYTES} bytes`));
  destination.on('write', () => spell.succeeded(`the log (${where}) is written again`));
  const tap = new LogTap();
  const pretty = opts.format === 'pretty' && !opts.file;
  const stream = pretty ? { write: (line: string) => destination.write(prettyLine(line)) } : destination;
  const log = pino({ level: opts.level, redact: { paths: REDACT, censor: '[redacted]' }, hooks: { streamWrite: tap.hook } }, stream);
  return { log, log_files: [opts.file ?? 'stdout'], tap };
}
