import { OUTBOX_GAPS_KEPT, type OutboxState, type ReplayGap } from '../contracts/outbox.js';

/**
 * The gaps a store keeps after `gap` (OUTBOX_GAPS_KEPT at most): with `continuesLast`
 * the last one extended, else `gap` added, which then counts in replay_gaps.
 */
export function withGap(gaps: readonly ReplayGap[], gap: ReplayGap, continuesLast: boolean): { gaps: ReplayGap[]; counts: boolean } {
  const last = gaps.at(-1);
  if (continuesLast && last) return { gaps: [...gaps.slice(0, -1), { ...last, to_sequence: gap.to_sequence }], counts: false };
  const record: ReplayGap = { from_sequence: gap.from_sequence, to_sequence: gap.to_sequence, at_unix_ms: gap.at_unix_ms };
  return { gaps: [...gaps, record].slice(-OUTBOX_GAPS_KEPT), counts: true };
}

/** A failed attempt: counted, and its error kept as the last one. */
export function countFailure(c: { total_failed: number; last_error: OutboxState['last_error'] }, message: string, at: number): void {
  c.total_failed += 1;
  c.last_error = { message, at_unix_ms: at };
}
