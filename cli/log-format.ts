import type { LogFormat } from '../actors/engine/logger.js';
import { UsageError } from './exit-codes.js';

/**
 * The log format of `weir run` and `weir deliver`: `--log-format json|pretty`, else
 * pretty when stdout is a terminal (a person is reading) and JSON otherwise (a process
 * manager or a pipe is).
 */
export function logFormatOf(flag: string | undefined, stdoutIsTty: boolean = process.stdout.isTTY === true): LogFormat {
  if (flag === undefined) return stdoutIsTty ? 'pretty' : 'json';
  if (flag === 'json' || flag === 'pretty') return flag;
  throw new UsageError(`--log-format must be json or pretty (got ${JSON.stringify(flag)})`);
}
