import type { FlowChange } from '../../streams/flow-change.js';

/** One principal's counters over a window; bytes are those of its completed flows' records. */
export interface PrincipalCounters {
  bytes_up: number;
  bytes_down: number;
  flows_opened: number;
  flows_completed: number;
  /** Completed with outcome `failed`. */
  flows_failed: number;
}

export interface PrincipalView {
  /** The flows' principal_key; null for flows without one (no authentication). */
  principal_key: string | null;
  /** Its flows open now. */
  flows_active: number;
  /** Since this run of the node started. */
  since_start: PrincipalCounters;
  /** Since the last reset, kept across restarts in the state dir. */
  since_reset: PrincipalCounters;
}

export interface PrincipalsView {
  started_at_unix_ms: number;
  reset_at_unix_ms: number;
  principals: PrincipalView[];
}

/** What the state file keeps: the since_reset window of each principal. */
export interface KeptPrincipals {
  reset_at_unix_ms: number;
  principals: { principal_key: string | null; since_reset: PrincipalCounters }[];
}

interface Entry {
  active: number;
  sinceStart: PrincipalCounters;
  sinceReset: PrincipalCounters;
}

function zero(): PrincipalCounters {
  return { bytes_up: 0, bytes_down: 0, flows_opened: 0, flows_completed: 0, flows_failed: 0 };
}

/**
 * Traffic and flows per principal_key, counted from the flow changes as flows start
 * and complete: a few additions per flow, nothing per byte. Bytes are taken from the
 * completed record, so a window's totals are the sums of its flow.completed records.
 */
export class PrincipalLedger {
  /** Keyed by principal_key; null is a Map key of its own, for flows without one. */
  private readonly entries = new Map<string | null, Entry>();
  private resetAt: number;
  /** Bumped by every change, so a saver knows whether there is anything new to write. */
  private changes = 0;

  constructor(
    private readonly startedAt: number,
    kept: KeptPrincipals | null,
  ) {
    this.resetAt = kept?.reset_at_unix_ms ?? startedAt;
    for (const p of kept?.principals ?? []) this.entry(p.principal_key).sinceReset = { ...p.since_reset };
  }

  get version(): number {
    return this.changes;
  }

  observe(change: FlowChange): void {
    if (change.kind !== 'started' && change.kind !== 'completed') return;
    const e = this.entry(change.auth.principal_key);
    this.changes++;
    if (change.kind === 'started') {
      e.active++;
      e.sinceStart.flows_opened++;
      e.sinceReset.flows_opened++;
      return;
    }
    e.active--;
    const t = change.record.traffic;
    const failed = change.record.result?.outcome === 'failed' ? 1 : 0;
    for (const c of [e.sinceStart, e.sinceReset]) {
      c.bytes_up += t.bytes_up;
      c.bytes_down += t.bytes_down;
      c.flows_completed++;
      c.flows_failed += failed;
    }
  }

  /** Starts the since_reset window of every principal over at `now`. */
  reset(now: number): { reset_at_unix_ms: number } {
    for (const e of this.entries.values()) e.sinceReset = zero();
    this.resetAt = now;
    this.changes++;
    return { reset_at_unix_ms: now };
  }

  view(): PrincipalsView {
    const principals = Array.from(this.entries, ([key, e]) => ({
      principal_key: key,
      flows_active: e.active,
      since_start: { ...e.sinceStart },
      since_reset: { ...e.sinceReset },
    }));
    // null (no principal) first, then by key: a stable order for people and diffs.
    principals.sort((a, b) => (a.principal_key === null ? -1 : b.principal_key === null ? 1 : a.principal_key < b.principal_key ? -1 : 1));
    return { started_at_unix_ms: this.startedAt, reset_at_unix_ms: this.resetAt, principals };
  }

  kept(): KeptPrincipals {
    return {
      reset_at_unix_ms: this.resetAt,
      principals: Array.from(this.entries, ([key, e]) => ({ principal_key: key, since_reset: { ...e.sinceReset } })),
    };
  }

  private entry(key: string | null): Entry {
    let e = this.entries.get(key);
    if (!e) {
      e = { active: 0, sinceStart: zero(), sinceReset: zero() };
      this.entries.set(key, e);
    }
    return e;
  }
}
