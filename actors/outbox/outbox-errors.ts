import type { WriteBlockReason } from '../contracts/outbox.js';

/** Disk protection (or a full Redis) pauses new outbox writes; the caller records a gap. */
export class OutboxWriteBlocked extends Error {
  override readonly name = 'OutboxWriteBlocked';
  readonly code = 'OUTBOX_WRITE_BLOCKED';

  constructor(
    readonly reason: WriteBlockReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The store cannot be reached (Redis down); nothing of the append was kept. */
export class OutboxUnavailable extends Error {
  override readonly name = 'OutboxUnavailable';
  readonly code = 'OUTBOX_UNAVAILABLE';
}

/** A call on an outbox after its close(). */
export class OutboxClosed extends Error {
  override readonly name = 'OutboxClosed';
  readonly code = 'OUTBOX_CLOSED';
}
