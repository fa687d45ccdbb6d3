import type { OutboxState, ReplayGap, WriteBlockReason } from '../contracts/outbox.js';

/** What a store counts of a sink; the rest of its state is read beside it. */
export interface OutboxCounts {
  pending: number;
  dead_letters: number;
  bytes: number;
  total_delivered: number;
  total_failed: number;
  replay_gaps: number;
  last_error: OutboxState['last_error'];
}

export const noCounts = (): OutboxCounts => ({ pending: 0, dead_letters: 0, bytes: 0, total_delivered: 0, total_failed: 0, replay_gaps: 0, last_error: null });

/** A sink's state in a store; `oldest` is the append time of the oldest pending entry. */
export function outboxState(store: 'embedded' | 'redis', c: OutboxCounts, oldest: number | null, gaps: ReplayGap[], blocked: WriteBlockReason | null, nowMs: number): OutboxState {
  return {
    pending: c.pending,
    total_delivered: c.total_delivered,
    total_failed: c.total_failed,
    replay_gaps: c.replay_gaps,
    last_error: c.last_error,
    outbox_storage: { store, write_blocked: blocked !== null, write_blocked_reason: blocked, bytes: c.bytes },
    oldest_pending_age_ms: oldest === null ? null : Math.max(0, nowMs - oldest),
    dead_letters: c.dead_letters,
    gaps,
  };
}
