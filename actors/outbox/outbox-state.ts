import { OUTBOX_GAPS_KEPT, type OutboxState, type ReplayGap, type WriteBlockReason } from '../contracts/outbox.js';

/** The counters no entry tells: the journal writes them in every commit line. */
export interface Counters {
  total_delivered: number;
  total_failed: number;
  replay_gaps: number;
  last_error: OutboxState['last_error'];
}

/** What a store counts of a sink; the rest of its state is read beside it. */
export interface OutboxCounts extends Counters {
  pending: number;
  dead_letters: number;
  bytes: number;
}

export const noCounters = (): Counters => ({ total_delivered: 0, total_failed: 0, replay_gaps: 0, last_error: null });

export const noCounts = (): OutboxCounts => ({ ...noCounters(), pending: 0, dead_letters: 0, bytes: 0 });

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

/** The gaps kept after `gap` (OUTBOX_GAPS_KEPT at most): the last extended if `continuesLast`, else `gap` added and counted. */
export function withGap(gaps: readonly ReplayGap[], gap: ReplayGap, continuesLast: boolean): { gaps: ReplayGap[]; counts: boolean } {
  const last = gaps.at(-1);
  if (continuesLast && last) return { gaps: [...gaps.slice(0, -1), { ...last, to_sequence: gap.to_sequence }], counts: false };
  const record: ReplayGap = { from_sequence: gap.from_sequence, to_sequence: gap.to_sequence, at_unix_ms: gap.at_unix_ms };
  return { gaps: [...gaps, record].slice(-OUTBOX_GAPS_KEPT), counts: true };
}

/** A failed attempt: counted, and its error kept as the last one. */
export function countFailure(c: Counters, message: string, at: number): void {
  c.total_failed += 1;
  c.last_error = { message, at_unix_ms: at };
}
