import type { OutboxState } from '../contracts/outbox.js';

type LastError = OutboxState['last_error'];

/**
 * A Redis sink's state over its two stores: Redis's part and the embedded store's
 * beside it (what Redis could not take). Counts add up, gaps and errors of both are
 * merged by time (`errors`: more of them, kept in memory), the oldest pending entry of
 * either counts, and Redis names the store. A full Redis pauses no write (the embedded
 * store takes them); the embedded store's block counts only when `spillTakesWrites`
 * (one a previous run left stands until that store's next append).
 */
export function mergeStates(p: OutboxState, s: OutboxState, opts: { spillTakesWrites: boolean; errors?: LastError[] }): OutboxState {
  const errors = [p.last_error, s.last_error, ...(opts.errors ?? [])].filter((e) => e !== null);
  const primaryBlocked = p.outbox_storage.write_blocked_reason === 'store_full' ? null : p.outbox_storage.write_blocked_reason;
  const spillBlocked = opts.spillTakesWrites ? s.outbox_storage.write_blocked_reason : null;
  const ages = [p.oldest_pending_age_ms, s.oldest_pending_age_ms].filter((a) => a !== null);
  return {
    pending: p.pending + s.pending,
    total_delivered: p.total_delivered + s.total_delivered,
    total_failed: p.total_failed + s.total_failed,
    replay_gaps: p.replay_gaps + s.replay_gaps,
    last_error: errors.sort((a, b) => b.at_unix_ms - a.at_unix_ms)[0] ?? null,
    outbox_storage: {
      store: p.outbox_storage.store,
      write_blocked: (primaryBlocked ?? spillBlocked) !== null,
      write_blocked_reason: primaryBlocked ?? spillBlocked,
      bytes: p.outbox_storage.bytes + s.outbox_storage.bytes,
    },
    oldest_pending_age_ms: ages.length > 0 ? Math.max(...ages) : null,
    dead_letters: p.dead_letters + s.dead_letters,
    gaps: [...s.gaps, ...p.gaps].sort((a, b) => a.at_unix_ms - b.at_unix_ms),
  };
}
