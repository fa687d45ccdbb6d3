import type { ReplayGap, WriteBlockReason } from './outbox.js';

/** Delivery state of one sink, as the contract's connector state names it. */
export interface ConnectorState {
  tag: string;
  type: string;
  /** Backlog not yet durably acknowledged. */
  pending: number;
  total_delivered: number;
  total_failed: number;
  replay_gaps: number;
  last_error: { message: string; at_unix_ms: number } | null;
  /**
   * When a delivery last succeeded in this run (a Webhook batch acknowledged, JSONL lines
   * written); null before the first. A last_error older than it is past: the sink recovered.
   */
  last_delivered_at_unix_ms?: number | null;
  outbox_storage: {
    write_blocked: boolean;
    /** Why writes are paused (outbox sinks). */
    write_blocked_reason?: WriteBlockReason | null;
    /** The outbox's store (outbox sinks). */
    store?: 'embedded' | 'redis';
    /** Bytes of the bodies the sink's outbox holds (outbox sinks). */
    bytes?: number;
  };
  /** Age of the oldest undelivered event (outbox sinks). */
  oldest_pending_age_ms?: number | null;
  /** Events given up on, listable and replayable (outbox sinks). */
  dead_letters?: number;
  /** The most recent missed ranges: sequence range and time (outbox sinks). */
  gaps?: { from_sequence: number; to_sequence: number; at_unix_ms: number }[];
}

/** A durable consumer of filtered envelopes (JSONL file, Webhook). */
export interface Sink {
  readonly tag: string;
  readonly type: string;
  /**
   * Starts taking the bus's events: live ones only, or with `since` first those after
   * that bus sequence that the ring still holds (what it no longer holds counts as a
   * replay gap), so a replacement goes on where its predecessor stopped. `missed` are
   * ranges of an earlier run it never took (MissedRanges), counted as replay gaps.
   */
  start(since?: number, missed?: readonly ReplayGap[]): Promise<void>;
  /**
   * Stops taking events at once, delivers or persists everything it took, then
   * releases its resources. Resolves with the bus sequence it took events through.
   */
  stop(): Promise<number>;
  /** The node's stop, for a sink that does more then than when it is replaced; stop() otherwise. */
  stopAtShutdown?(): Promise<number>;
  /**
   * Called with the bus's last sequence (each tick, at start, around a swap of sinks):
   * the highest sequence through which every event this sink takes is kept or counted
   * as a gap (KeptMark). After a crash, what lies past it is what the sink cannot vouch
   * for (SinkMarks). Before its start a sink has taken nothing: it returns `lastSequence`.
   */
  keptThrough(lastSequence: number): number;
  /** The state as last read: never waits (read every tick by the node's own bookkeeping). */
  state(): ConnectorState;
  /**
   * Someone (the API, status, a metrics scrape, the fleet presence) asks for the state:
   * a sink whose state is costly to read (a Redis outbox) reads it now, once for many
   * askers close together. Never rejects.
   */
  refreshState?(): Promise<void>;
}
