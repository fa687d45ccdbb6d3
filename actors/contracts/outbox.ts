/**
 * The outbox of one sink: where the dispatcher durably keeps a sink's filtered
 * envelopes until they are delivered. Two stores implement it (the embedded store in
 * node.state_dir, BullMQ on Redis) and one contract suite (spec/unit/outbox/
 * outbox-contract.ts) holds both to the rules written here.
 *
 * Delivery is at least once: an entry leaves the outbox only once delivered or
 * dead-lettered. Each sink has one delivery engine. Without Redis it is the embedded
 * store, a LeasedOutbox: the node's own loop leases entries and settles each with
 * `ack`, `retry` or `deadLetter`; leases live in that process, and an entry leased by
 * a consumer that closed or died without settling it is pending again once the outbox
 * is opened anew. With Redis it is a BullMQ queue consumed by BullMQ Workers with a
 * processor (outbox/bullmq-delivery.ts), in the node or in `weir deliver` processes
 * elsewhere: BullMQ's locks and stalled-job recovery give back what a dead worker
 * held. What the node keeps on disk while Redis does not answer is an outage journal
 * that it moves into the queue (outbox/journaled-outbox.ts); nothing delivers from it.
 */

/** What the dispatcher appends: one envelope of the sink. */
export interface OutboxAppend {
  /** The envelope's event_id. Receivers dedupe on it. */
  id: string;
  /** The envelope's bus sequence; recorded so that gaps can name their range. */
  sequence: number;
  /** The envelope as JSON, with source_id set to the node id. */
  body: string;
}

/** A pending entry as `lease` hands it out. */
export interface OutboxEntry extends OutboxAppend {
  /** When the entry was appended; never changes, not even by a replay. */
  enqueued_at_unix_ms: number;
  /** Failed attempts reported through `retry` since the append or the last replay. */
  attempts: number;
  /** When the entry last came back from the dead-letter set; null if it never did. */
  replayed_at_unix_ms: number | null;
}

/** An entry the connector gave up on; the operator can list and replay it. */
export interface DeadLetter extends OutboxEntry {
  /** The error of the last attempt, as the connector reported it. */
  error: string;
  dead_at_unix_ms: number;
}

/**
 * A contiguous range of events the sink missed because the outbox could not keep them
 * (write blocked or store unreachable). Sequences are those of the node's bus (they go
 * on across engine starts); events of the range that the sink's filter excludes
 * were never due. A controller reconciles the range against its own ledger.
 */
export interface ReplayGap {
  from_sequence: number;
  to_sequence: number;
  /** When the first event of the range was missed. */
  at_unix_ms: number;
}

/** Why new writes are paused; null while they are not. */
export type WriteBlockReason = 'max_bytes' | 'min_free_bytes' | 'store_full';

export interface OutboxState {
  /** Entries appended and neither acknowledged nor dead-lettered (leased ones included). */
  pending: number;
  /** Entries acknowledged, ever. */
  total_delivered: number;
  /** Failed attempts, ever: one per `retry` and per `deadLetter`. */
  total_failed: number;
  /** Missed ranges, ever; a drained backlog never lowers it (contract, operational rule 4). */
  replay_gaps: number;
  /** The most recent failed attempt; the connector keeps secrets out of the message. */
  last_error: { message: string; at_unix_ms: number } | null;
  outbox_storage: {
    /** The store: `embedded` (LMDB in node.state_dir) or `redis` (BullMQ). */
    store: 'embedded' | 'redis';
    /** Whether disk protection pauses new writes, node-wide (the limits are node-wide). */
    write_blocked: boolean;
    write_blocked_reason: WriteBlockReason | null;
    /** Bytes of the bodies this sink holds (pending and dead letters). */
    bytes: number;
  };
  /** Age of the oldest pending entry; null when nothing is pending. */
  oldest_pending_age_ms: number | null;
  /** Entries in the dead-letter set. */
  dead_letters: number;
  /** The most recent missed ranges, newest last (at most OUTBOX_GAPS_KEPT). */
  gaps: ReplayGap[];
}

/** How many recent gaps an outbox keeps for the operator; the count has no limit. */
export const OUTBOX_GAPS_KEPT = 20;

/** What every store does: keep a sink's entries, its gaps and dead letters, and tell its state. */
export interface Outbox {
  readonly sink: string;
  /**
   * Keeps the entries, in this order after every earlier append. Resolves once they are
   * committed (they survive kill -9 of the node; the embedded store waits for the disk
   * flush too). All or nothing. Rejects with OutboxWriteBlocked while a limit is hit
   * (checked again on every append) and with OutboxUnavailable while the store cannot
   * be reached; the caller then reports the missed events with `recordGap`.
   * An id the outbox still holds is kept once by the Redis store (job ids dedupe) and
   * twice by the embedded one; receivers dedupe on event_id either way.
   */
  append(entries: readonly OutboxAppend[]): Promise<void>;
  /** Calls `listener` after each committed append; returns the unsubscribe function. */
  onAppend(listener: () => void): () => void;
  /** Up to `limit` dead letters, oldest first. */
  listDeadLetters(limit: number): Promise<DeadLetter[]>;
  /** Makes the given dead letters (all when `ids` is omitted) pending again with attempts 0; resolves with how many. */
  replayDeadLetters(ids?: readonly string[]): Promise<number>;
  /**
   * Records a missed range. With `continuesLast` (nothing was kept since the last
   * range this sink reported) the last range is extended instead of counting a new
   * gap. Writes even while appends are blocked: the record is tiny and the limits keep room.
   */
  recordGap(gap: ReplayGap, continuesLast: boolean): Promise<void>;
  state(): Promise<OutboxState>;
  /** Releases the sink's resources (and, for a LeasedOutbox, its leases: the entries are pending again). */
  close(): Promise<void>;
}

/** A store whose entries the node delivers itself by leasing them (the embedded store). */
export interface LeasedOutbox extends Outbox {
  /**
   * Up to `max` entries, oldest append first, that are pending, not leased, and due (a
   * retried entry is due from its notBefore on). Never waits for entries to arrive.
   * Entries that come back by `retry` or replay may be handed out after newer ones.
   */
  lease(max: number): Promise<OutboxEntry[]>;
  /** Delivered: the leased entries leave the outbox and count in total_delivered. Unleased ids are ignored. */
  ack(ids: readonly string[]): Promise<void>;
  /** A failed attempt of a leased entry: counts it, sets last_error, and makes it due again at `notBeforeUnixMs`. */
  retry(id: string, error: string, notBeforeUnixMs: number): Promise<void>;
  /** The last failed attempt of a leased entry: counts it, sets last_error, and moves the entry to the dead-letter set. */
  deadLetter(id: string, error: string): Promise<void>;
}

/**
 * A sink's outbox as the node opens it: the embedded store, which the node delivers
 * itself, or the sink's BullMQ queue (with its outage journal), which BullMQ workers
 * deliver.
 */
export type SinkOutbox = { store: 'embedded'; outbox: LeasedOutbox } | { store: 'redis'; outbox: Outbox };

/** What becomes of an entry after a delivery attempt: delivered, due again at a time, or a dead letter. */
export type EntrySettlement =
  | { kind: 'ack' }
  | { kind: 'retry'; error: string; notBeforeUnixMs: number }
  | { kind: 'dead'; error: string };

/**
 * Delivers the entries of one Redis outbox job together (a BullMQ processor): resolves
 * with what becomes of all of them, never rejects.
 */
export type DeliverEntries = (entries: OutboxEntry[]) => Promise<EntrySettlement>;

/** How a sink's outbox is opened. */
export interface OutboxOpenOptions {
  /**
   * The most entries one delivery request carries. The Redis store keeps the entries
   * of one append in jobs of up to this many, which its workers deliver together; the
   * embedded store leases entry by entry and ignores it. @defaultValue 1
   */
  batchSize?: number;
}

/** Node-wide limits of the outbox (config `outbox`). */
export interface OutboxLimits {
  /** Bytes of bodies all sinks together may hold before new writes are blocked. */
  max_bytes: number;
  /** Bytes to keep free on the state_dir file system (embedded store only). */
  min_free_bytes: number;
}

/** One store per node; it opens the outbox of each sink. */
export interface OutboxStore<O extends Outbox = Outbox> {
  open(sink: string, opts?: OutboxOpenOptions): Promise<O>;
  /** Closes every outbox it opened, then the store. */
  close(): Promise<void>;
}
