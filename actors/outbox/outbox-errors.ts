import type { OutboxAppend, WriteBlockReason } from '../contracts/outbox.js';
import { WeirError } from '../errors/weir-error.js';

export interface AppendErrorOptions {
  cause?: unknown;
  /**
   * The entries of a refused append that the store did not keep, when it kept some
   * (a batch that Redis ran out of memory in the middle of); absent: none was kept.
   */
  unstored?: readonly OutboxAppend[];
}

/** An append the store refused; what `unstored` leaves out of it was kept. */
abstract class AppendRefused<C extends 'OUTBOX_WRITE_BLOCKED' | 'OUTBOX_UNAVAILABLE'> extends WeirError<C> {
  readonly unstored?: readonly OutboxAppend[];

  constructor(code: C, message: string, options?: AppendErrorOptions) {
    super(code, message, options);
    if (options?.unstored) this.unstored = options.unstored;
  }
}

/** Disk protection (or a full Redis) pauses new outbox writes; the caller records a gap. */
export class OutboxWriteBlocked extends AppendRefused<'OUTBOX_WRITE_BLOCKED'> {
  constructor(
    readonly reason: WriteBlockReason,
    message: string,
    options?: AppendErrorOptions,
  ) {
    super('OUTBOX_WRITE_BLOCKED', message, options);
  }
}

/** The store cannot be reached (Redis down); of the append, nothing was kept, or all but `unstored`. */
export class OutboxUnavailable extends AppendRefused<'OUTBOX_UNAVAILABLE'> {
  constructor(message: string, options?: AppendErrorOptions) {
    super('OUTBOX_UNAVAILABLE', message, options);
  }
}

/** A call on an outbox after its close(). */
export class OutboxClosed extends WeirError<'OUTBOX_CLOSED'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('OUTBOX_CLOSED', message, options);
  }
}
