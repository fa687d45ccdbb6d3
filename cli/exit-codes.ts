import { WeirError } from '../actors/errors/weir-error.js';
/** Exit codes of every `weir` command, so scripts can tell the cases apart. */
export const EXIT = {
  ok: 0,
  /** The command ran and failed: invalid config, engine failure, a probe round with no healthy member. */
  failure: 1,
  /** Wrong arguments: an unknown command or flag, a malformed value. */
  usage: 2,
  /** The node is not running or its IPC channel cannot be reached; or Redis cannot be reached. */
  unreachable: 3,
  /** The node answered and refused the request. */
  refused: 4,
} as const;

export class UsageError extends WeirError<'CLI_USAGE'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CLI_USAGE', message, options);
  }
}
