import type { OutboxState, ReplayGap, WriteBlockReason } from '../contracts/outbox.js';

/** What an embedded store counts of a sink (its `state()` and the offline reader read the same). */
export interface EmbeddedCounts {
  pending: number;
  dead_letters: number;
  bytes: number;
  total_delivered: number;
  total_failed: number;
  replay_gaps: number;
  last_error: OutboxState['last_error'];
}

/** A sink's state in an embedded store; `oldest` is the append time of the oldest pending entry. */
export function embeddedState(c: EmbeddedCounts, oldest: number | null, gaps: ReplayGap[], blocked: WriteBlockReason | null, nowMs: number): OutboxState {
  return {
    pending: c.pending,
    total_delivered: c.total_delivered,
    total_failed: c.total_failed,
    replay_gaps: c.replay_gaps,
    last_error: c.last_error,
    outbox_storage: { store: 'embedded', write_blocked: blocked !== null, write_blocked_reason: blocked, bytes: c.bytes },
    oldest_pending_age_ms: oldest === null ? null : Math.max(0, nowMs - oldest),
    dead_letters: c.dead_letters,
    gaps,
  };
}
