import type { WriteBlockReason } from '../contracts/outbox.js';
import { WeirError } from '../errors/weir-error.js';

/** Disk protection (or a full Redis) pauses new outbox writes; the caller records a gap. */
export class OutboxWriteBlocked extends WeirError<'OUTBOX_WRITE_BLOCKED'> {
  constructor(
    readonly reason: WriteBlockReason,
    message: string,
    options?: ErrorOptions,
  ) {
    super('OUTBOX_WRITE_BLOCKED', message, options);
  }
}

/** The store cannot be reached (Redis down). */
export class OutboxUnavailable extends WeirError<'OUTBOX_UNAVAILABLE'> {
  constructor(message: string, options?: ErrorOptions) {
    super('OUTBOX_UNAVAILABLE', message, options);
  }
}

/** A call on an outbox after its close(). */
export class OutboxClosed extends WeirError<'OUTBOX_CLOSED'> {
  constructor(message: string, options?: ErrorOptions) {
    super('OUTBOX_CLOSED', message, options);
  }
}
