import type { DeadLetter, LeasedOutbox, Outbox, OutboxAppend, OutboxEntry, OutboxState, OwingOutbox, ReplayGap } from '../contracts/outbox.js';
import type { StopDeadline } from '../base/stop-deadline.js';
import { mergeStates } from './merge-states.js';
import { OutboxUnavailable, OutboxWriteBlocked } from './outbox-errors.js';
import type { RedisHealth } from './redis-health.js';

/**
 * A Redis outbox: it can hand its waiting entries over when it is out of memory, and
 * claim the count of events the node kept in both stores (see maybeInBoth).
 */
export interface EvacuableOutbox extends Outbox {
  evacuate(max: number, into: (entries: OutboxAppend[]) => Promise<void>): Promise<number>;
  /**
   * For each id: marks its Redis copy as counted, so its delivery does not count;
   * `false` where the Redis copy was counted already (delivered first).
   */
  claimCounts(ids: readonly string[]): Promise<boolean[]>;
}

/** Waiting entries moved from a full Redis to the embedded store per lease of the latter. */
const EVACUATED_PER_LEASE = 100;

/**
 * How many ids of events that may be in both stores are remembered: those of the
 * appends under way when Redis stopped answering, a batch or a few per outage.
 */
const MAYBE_IN_BOTH_KEPT = 65_536;

/** What Redis refuses, and the embedded store takes instead. */
function redisRefused(err: unknown): err is OutboxUnavailable | OutboxWriteBlocked {
  return err instanceof OutboxUnavailable || (err instanceof OutboxWriteBlocked && err.reason === 'store_full');
}

export interface SpillOutboxOptions {
  /** Least time between two checks whether a Redis that failed an append answers again. @defaultValue 5000 */
  probeMs?: number;
  /** The node's stop deadline: appends and gap records Redis has not taken by then go to the embedded store. */
  deadline?: StopDeadline;
  /** Told when Redis fails an append and when a probe finds it answering again. */
  health?: RedisHealth;
}

/**
 * A sink's Redis outbox with the embedded one beside it: appends that Redis cannot
 * take (it is down, or out of memory) are kept in the embedded store instead, and the
 * node delivers them from there (leases come from the embedded store alone; BullMQ
 * workers deliver what Redis holds), so neither loses anything. A Redis out of memory
 * cannot hand jobs to its workers either: its waiting entries then move to the
 * embedded store, which frees Redis for the other nodes on it.
 */
export class SpillOutbox implements LeasedOutbox {
  private lastPrimary: OutboxState | null = null;
  /** Set while Redis is out of memory and appends go to the embedded store: shown as last_error. */
  private redisFull: { message: string; at_unix_ms: number } | null = null;
  /**
   * Set once Redis failed an append (down, or hung: then each command waits for its
   * timeout, 3 s, and one append at a time would make a queue of them): appends and
   * gaps go to the embedded store until a probe, off their path, finds Redis answering.
   */
  private redisDown = false;
  private probing = false;
  private lastProbe = 0;
  /** The store of the last gap recorded: a continuing range extends only a gap of the same store. */
  private lastGapIn: Outbox | null = null;
  /**
   * Ids the embedded store took after a Redis append failed that Redis may still run
   * (a hung Redis answers it late): such an event may be delivered from both stores.
   * Its embedded copy's ack claims the count from the Redis copy (claimCounts), so one
   * event counts once; a Redis copy delivered and completed before that claim counts
   * as well. Oldest first, for the bound.
   */
  private readonly maybeInBoth = new Set<string>();
  /**
   * Whether the embedded store may hold owed counts: acks whose claim Redis did not
   * answer (it may have run the append before it went down). They are settled at a
   * state read once Redis answers; a start settles those a killed run left.
   */
  private owing = true;
  /** The settling under way: two state reads at once settle the owed counts once. */
  private settling: Promise<void> | null = null;

  constructor(
    private readonly primary: EvacuableOutbox,
    private readonly spill: OwingOutbox,
    private readonly opts: SpillOutboxOptions = {},
  ) {}

  get sink(): string {
    return this.primary.sink;
  }

  async append(entries: readonly OutboxAppend[]): Promise<void> {
    if (this.redisDown) {
      this.probeRedis();
      return this.spill.append(entries);
    }
    try {
      await this.toRedis(this.primary.append(entries));
      this.redisFull = null;
    } catch (err) {
      if (!redisRefused(err)) throw err;
      if (err instanceof OutboxWriteBlocked) this.redisFull ??= { message: 'Redis is out of memory: events are kept in the embedded outbox', at_unix_ms: Date.now() };
      else {
        this.redisDown = true;
        // Given up on at the stop's deadline is the stop's doing, not an outage to tell.
        if (!this.opts.deadline?.begun) this.opts.health?.failed(this.sink, err.message);
      }
      const spilled = err.unstored ?? entries;
      await this.spill.append(spilled);
      // Out of memory is a refusal; an unanswered append may still run.
      if (err instanceof OutboxUnavailable) this.rememberMaybeInBoth(spilled);
    }
  }

  private rememberMaybeInBoth(entries: readonly OutboxAppend[]): void {
    for (const e of entries) this.maybeInBoth.add(e.id);
    for (const id of this.maybeInBoth) {
      if (this.maybeInBoth.size <= MAYBE_IN_BOTH_KEPT) break;
      this.maybeInBoth.delete(id);
    }
  }

  /**
   * A write to Redis, given up once the node's stop deadline has passed: a Redis that
   * stopped answering would otherwise hold the stop for its reply timeout (3 s), and
   * the node's exit with it. Given up, it fails as it would with Redis down, so what it
   * carried goes to the embedded store, where the next start delivers it from; should
   * Redis run it after all, its events are there twice under the same event_ids, which
   * delivery at least once allows.
   */
  private async toRedis(write: Promise<void>): Promise<void> {
    if (!this.opts.deadline) return write;
    const written = await this.opts.deadline.within(write.then(() => true));
    if (!written) throw new OutboxUnavailable(`Redis did not answer for sink ${this.sink} before the node's stop deadline`);
  }

  /** Whether Redis answers again, asked at most once per probeMs, off the appends' path. */
  private probeRedis(): void {
    const now = Date.now();
    if (this.probing || now - this.lastProbe < (this.opts.probeMs ?? 5000)) return;
    this.probing = true;
    this.lastProbe = now;
    this.primary.state().then(
      () => {
        this.redisDown = false;
        this.probing = false;
        this.opts.health?.answered(this.sink);
      },
      () => (this.probing = false),
    );
  }

  onAppend(listener: () => void): () => void {
    const detach = [this.primary.onAppend(listener), this.spill.onAppend(listener)];
    return () => detach.forEach((d) => d());
  }

  /** The embedded store's entries; while Redis is full, first its oldest waiting ones, moved over. */
  async lease(max: number): Promise<OutboxEntry[]> {
    if (this.redisFull) await this.primary.evacuate(EVACUATED_PER_LEASE, (e) => this.spill.append(e)).catch(() => 0);
    return this.spill.lease(max);
  }

  async ack(ids: readonly string[]): Promise<void> {
    const shared = ids.filter((id) => this.maybeInBoth.has(id));
    if (shared.length === 0) return this.spill.ack(ids);
    const claimed = await this.primary.claimCounts(shared).catch(() => null);
    if (claimed === null) {
      // Redis does not answer: whether its copy (if any) counts is known once it does.
      this.owing = true;
      const sharedIds = new Set(shared);
      await Promise.all([this.spill.ack(ids.filter((id) => !sharedIds.has(id))), this.spill.ackOwed(shared)]);
    } else {
      const countedInRedis = new Set(shared.filter((_, i) => !claimed[i]));
      await Promise.all([
        this.spill.ack(ids.filter((id) => !countedInRedis.has(id))),
        countedInRedis.size > 0 && this.spill.ack([...countedInRedis], { count: false }),
      ]);
    }
    for (const id of shared) this.maybeInBoth.delete(id);
  }

  /** Claims the owed counts from Redis: those whose Redis copy was not counted (or never was) count here. */
  private async settleOwed(): Promise<void> {
    const ids = this.spill.owed();
    if (ids.length === 0) {
      this.owing = false;
      return;
    }
    const claimed = await this.primary.claimCounts(ids).catch(() => null);
    if (claimed === null) return;
    await this.spill.settleOwed(ids, claimed.filter(Boolean).length);
  }

  retry(id: string, error: string, notBeforeUnixMs: number): Promise<void> {
    return this.spill.retry(id, error, notBeforeUnixMs);
  }

  deadLetter(id: string, error: string): Promise<void> {
    return this.spill.deadLetter(id, error);
  }

  async listDeadLetters(limit: number): Promise<DeadLetter[]> {
    const [a, b] = await Promise.all([this.spill.listDeadLetters(limit), this.primary.listDeadLetters(limit)]);
    return [...a, ...b].sort((x, y) => x.dead_at_unix_ms - y.dead_at_unix_ms).slice(0, limit);
  }

  async replayDeadLetters(ids?: readonly string[]): Promise<number> {
    const [a, b] = await Promise.all([this.spill.replayDeadLetters(ids), this.primary.replayDeadLetters(ids)]);
    return a + b;
  }

  /**
   * In Redis, or in the embedded store when Redis does not take it. A range that
   * continues the last one extends it only where the last one went: the other store's
   * last gap may be an older, unrelated one, and extending it would hide this one.
   */
  async recordGap(gap: ReplayGap, continuesLast: boolean): Promise<void> {
    if (!this.redisDown) {
      try {
        await this.toRedis(this.primary.recordGap(gap, continuesLast && this.lastGapIn === this.primary));
        this.lastGapIn = this.primary;
        return;
      } catch {
        // Kept in the embedded store below.
      }
    }
    await this.spill.recordGap(gap, continuesLast && this.lastGapIn === this.spill);
    this.lastGapIn = this.spill;
  }

  /** Also where an idle sink finds Redis back: the sink reads its state every second. */
  async state(): Promise<OutboxState> {
    if (this.redisDown) this.probeRedis();
    else if (this.owing) {
      this.settling ??= this.settleOwed()
        .catch(() => undefined)
        .finally(() => (this.settling = null));
      await this.settling;
    }
    const [p, s] = await Promise.all([this.primaryState(), this.spill.state()]);
    return mergeStates(p, s, { spillTakesWrites: this.redisDown || this.redisFull !== null, errors: [this.redisFull] });
  }

  async close(): Promise<void> {
    await Promise.all([this.primary.close(), this.spill.close()]);
  }

  /**
   * Redis's part of the state; while Redis cannot be reached, the last one read (none
   * yet: nothing known, and why), so the spill part still shows. The sink reads it every
   * second, so an idle sink's read also tells `health` when Redis stops and starts
   * answering.
   */
  private async primaryState(): Promise<OutboxState> {
    try {
      this.lastPrimary = await this.primary.state();
      this.opts.health?.answered(this.sink);
    } catch (err) {
      if (!this.opts.deadline?.begun) this.opts.health?.failed(this.sink, err instanceof Error ? err.message : String(err));
      if (!this.lastPrimary) return unknownState(err);
    }
    return this.lastPrimary;
  }
}

/** The Redis part of a sink's state before Redis ever answered. */
function unknownState(err: unknown): OutboxState {
  return {
    pending: 0,
    total_delivered: 0,
    total_failed: 0,
    replay_gaps: 0,
    last_error: { message: err instanceof Error ? err.message : String(err), at_unix_ms: Date.now() },
    outbox_storage: { store: 'redis', write_blocked: false, write_blocked_reason: null, bytes: 0 },
    oldest_pending_age_ms: null,
    dead_letters: 0,
    gaps: [],
  };
}
