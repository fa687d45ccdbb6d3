import type { OutboxAppend, WriteBlockReason } from '../contracts/outbox.js';

export interface AppendErrorOptions {
  cause?: unknown;
  /**
   * The entries of a refused append that the store did not keep, when it kept some
   * (a batch that Redis ran out of memory in the middle of); absent: none was kept.
   */
  unstored?: readonly OutboxAppend[];
}

/** An append the store refused; what `unstored` leaves out of it was kept. */
abstract class AppendRefused extends Error {
  readonly unstored?: readonly OutboxAppend[];

  constructor(message: string, options?: AppendErrorOptions) {
    super(message, options);
    if (options?.unstored) this.unstored = options.unstored;
  }
}

/** Disk protection (or a full Redis) pauses new outbox writes; the caller records a gap. */
export class OutboxWriteBlocked extends AppendRefused {
  override readonly name = 'OutboxWriteBlocked';
  readonly code = 'OUTBOX_WRITE_BLOCKED';

  constructor(
    readonly reason: WriteBlockReason,
    message: string,
    options?: AppendErrorOptions,
  ) {
    super(message, options);
  }
}

/** The store cannot be reached (Redis down); of the append, nothing was kept, or all but `unstored`. */
export class OutboxUnavailable extends AppendRefused {
  override readonly name = 'OutboxUnavailable';
  readonly code = 'OUTBOX_UNAVAILABLE';
}

/** A call on an outbox after its close(). */
export class OutboxClosed extends Error {
  override readonly name = 'OutboxClosed';
  readonly code = 'OUTBOX_CLOSED';
}
