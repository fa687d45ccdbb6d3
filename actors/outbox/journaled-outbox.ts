import type { DeadLetter, LeasedOutbox, Outbox, OutboxAppend, OutboxEntry, OutboxState, ReplayGap } from '../contracts/outbox.js';
import type { StopDeadline } from '../base/stop-deadline.js';
import { AppendSignal } from './append-signal.js';
import { groupsOf, timed } from './bullmq-jobs.js';
import type { BullmqOutbox } from './bullmq-outbox.js';
import { journalEntries, journalJobs } from './outage-journal.js';
import { OutboxUnavailable, OutboxWriteBlocked } from './outbox-errors.js';
import { noCounts, outboxState } from './outbox-state.js';
import type { RedisHealth } from './redis-health.js';

/** How often a sink whose journal holds entries asks whether Redis answers. */
const PROBE_MS = 1000;
/** Journal entries leased per move step, at least: jobs of up to 1000 events (batch_size) fit twice. */
const MOVE_LEASE = 2000;
/** The state hash field that counts the journal's gaps already added to Redis. */
const MOVED_GAPS_FIELD = 'journal_gaps_moved';

/** What Redis refuses, and the journal takes instead: it does not answer, or is out of memory. */
function redisRefused(err: unknown): boolean {
  return err instanceof OutboxUnavailable || (err instanceof OutboxWriteBlocked && err.reason === 'store_full');
}

/** Leased journal entries a move step adds; `complete` unless the lease's limit may have cut the last job short. */
type MoveStep = { entries: OutboxEntry[]; complete: boolean };

export interface JournaledOutboxParts {
  sink: string;
  batchSize: number;
  /** The sink's Redis outbox, once opened; opens it (rejects while Redis does not answer). */
  redis: BullmqOutbox | null;
  /** Why `redis` is null: what Redis last said (a refusal of weir's sign-in or certificate). @defaultValue Redis did not answer */
  unopened?: string | undefined;
  openRedis: () => Promise<BullmqOutbox>;
  /** The outage journal (the embedded store's outbox of the sink, only appended, leased and acknowledged). */
  journal: LeasedOutbox;
  deadline: StopDeadline;
  health: RedisHealth;
}

/**
 * A Webhook sink's outbox with Redis: its BullMQ queue, and while Redis does not answer
 * (down, hung, out of memory) the outage journal on disk. Once Redis answers the journal
 * moves into the queue, oldest first, as the jobs the appends would have added
 * (outage-journal.ts), so a move cut short by a crash adds nothing twice. Appends go to
 * the journal until it is empty, keeping bus order. Counters are Redis's.
 */
export class JournaledOutbox implements Outbox {
  readonly sink: string;
  private redis: BullmqOutbox | null;
  /** Appends go to the journal: from a failed Redis append (or a journal found holding entries) until the journal is moved. */
  private journaling = true;
  private journalAppends = 0;
  private moving: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private closed = false;
  /** Events added to the queue whose journal entries are not deleted yet: counted in Redis's pending already. */
  private movedUnacked = 0;
  /** The journal's gaps Redis holds (its state's replay_gaps then); null until read from Redis. */
  private gapsMoved: number | null = null;
  private gapsRecordedHere = 0;
  private lastRedis: OutboxState | null = null;
  private lastGapInRedis = false;
  private down: string | null = null;
  private readonly appended = new AppendSignal();

  constructor(private readonly p: JournaledOutboxParts) {
    this.sink = p.sink;
    this.redis = p.redis;
    if (!this.redis) this.outage(p.unopened ?? 'Redis did not answer when the sink opened');
    this.startMoving();
  }

  async append(entries: readonly OutboxAppend[]): Promise<void> {
    const groups = groupsOf(entries, this.p.batchSize);
    if (await this.inRedis((redis) => redis.add(timed(groups, Date.now())))) return this.appended.fire();
    this.journalAppends++;
    try {
      await this.p.journal.append(journalEntries(groups));
    } finally {
      this.journalAppends--;
    }
    this.startMoving();
  }

  /** Runs `write` in Redis unless appends go to the journal; false when the journal must take it instead. */
  private async inRedis(write: (redis: BullmqOutbox) => Promise<unknown>): Promise<boolean> {
    if (this.journaling || !this.redis) return false;
    try {
      await this.toRedis(write(this.redis));
      return true;
    } catch (err) {
      if (!redisRefused(err)) throw err;
      this.outage(err as Error);
      return false;
    }
  }

  /**
   * A write to Redis, given up at the node's stop deadline rather than hold the stop for
   * the reply timeout (3 s): should Redis run it after all, the next move adds nothing.
   */
  private async toRedis<T>(write: Promise<T>): Promise<T> {
    const written = await this.p.deadline.within(write.then((value) => ({ value })));
    if (!written) throw new OutboxUnavailable(`Redis did not answer for sink ${this.sink} before the node's stop deadline`);
    return written.value;
  }

  /** The latest reason is shown: a command cut while reconnecting fails before Redis refuses the sign-in, the thing to fix. */
  private outage(why: Error | string): void {
    this.journaling = true;
    this.down = typeof why === 'string' ? why : why.message;
    // Given up on at the stop's deadline is the stop's doing, not an outage to tell.
    if (!this.p.deadline.begun) this.p.health.failed(this.sink, why);
  }

  private startMoving(): void {
    if (this.closed || !this.journaling) return;
    this.moving ??= this.move()
      .catch(() => undefined)
      .finally(() => {
        this.moving = null;
        // An outage that began as the move ended found it still running.
        this.startMoving();
      });
  }

  /** Moves the journal into the queue until it is empty; appends go there again then. */
  private async move(): Promise<void> {
    const leaseMax = Math.max(MOVE_LEASE, 2 * this.p.batchSize);
    // Leased and not deleted yet: a job the last lease may have cut short, or a step Redis
    // refused, tried again as it is (no more is leased meanwhile, so memory stays bounded).
    let held: OutboxEntry[] = [];
    let retry: MoveStep | null = null;
    while (!this.closed) {
      const redis = await this.opened();
      if (!redis) {
        await this.sleep(PROBE_MS);
        continue;
      }
      try {
        await this.moveGaps(redis);
        let step: MoveStep | null = retry;
        if (!step) {
          const leased = await this.p.journal.lease(leaseMax);
          step = { entries: [...held, ...leased], complete: leased.length < leaseMax };
          held = [];
        }
        if (step.entries.length === 0) {
          if (this.journalAppends > 0) {
            await this.sleep(10);
            continue;
          }
          // Marks a crash left between a deletion and its endMove: no entry is left to match them.
          await this.toRedis(redis.endMove());
          this.answered();
          this.journaling = false;
          return;
        }
        retry = step;
        const { jobs, rest } = journalJobs(step.entries, step.complete);
        const ids = jobs.map((j) => j.id);
        // Marked before the add, so a worker marks the job settled: a move cut short by a crash
        // does not add it again at a later start, however long ago BullMQ forgot its id.
        const settled = await this.toRedis(redis.beginMove(ids));
        await this.toRedis(redis.add(jobs.filter((j) => !settled.has(j.id))));
        this.answered();
        this.movedUnacked = jobs.reduce((n, j) => n + j.events.length, 0);
        await this.p.journal.ack(jobs.flatMap((j) => j.entryIds));
        retry = null;
        held = rest;
        this.movedUnacked = 0;
        this.appended.fire();
        await this.toRedis(redis.endMove(ids));
      } catch (err) {
        // Still leased, in `retry`: added again at the next try, which adds nothing twice.
        this.movedUnacked = 0;
        if (redisRefused(err)) this.outage(err as Error);
        await this.sleep(PROBE_MS);
      }
    }
  }

  /** The Redis outbox, opened if it is not yet; null while it cannot be. */
  private async opened(): Promise<BullmqOutbox | null> {
    return (this.redis ??= await this.p.openRedis().catch(() => null));
  }

  /** Redis took a write of the move: the outage, if any, is over. */
  private answered(): void {
    if (this.down === null) return;
    this.down = null;
    this.p.health.answered(this.sink);
  }

  /** Adds the journal's gaps Redis does not hold yet, and marks them moved in the same MULTI. */
  private async moveGaps(redis: BullmqOutbox): Promise<void> {
    const journal = await this.p.journal.state();
    this.gapsMoved = await redis.stateField(MOVED_GAPS_FIELD);
    const count = journal.replay_gaps - this.gapsMoved;
    if (count <= 0) return;
    await this.toRedis(redis.addGaps(journal.gaps.slice(-count), count, [MOVED_GAPS_FIELD, journal.replay_gaps]));
    this.gapsMoved = journal.replay_gaps;
    this.gapsRecordedHere = 0;
    this.lastGapInRedis = false;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  onAppend(listener: () => void): () => void {
    return this.appended.on(listener);
  }

  listDeadLetters(limit: number): Promise<DeadLetter[]> {
    return this.redisOrFail().listDeadLetters(limit);
  }

  replayDeadLetters(ids?: readonly string[]): Promise<number> {
    return this.redisOrFail().replayDeadLetters(ids);
  }

  private redisOrFail(): BullmqOutbox {
    if (!this.redis) throw new OutboxUnavailable(`Redis has not answered since sink "${this.sink}" opened`);
    return this.redis;
  }

  /** In Redis, else in the journal until moved. A range continues the last only in Redis: the journal's last may be moved already. */
  async recordGap(gap: ReplayGap, continuesLast: boolean): Promise<void> {
    if (await this.inRedis((redis) => redis.recordGap(gap, continuesLast && this.lastGapInRedis))) {
      this.lastGapInRedis = true;
      return;
    }
    await this.p.journal.recordGap(gap, false);
    this.gapsRecordedHere++;
    this.lastGapInRedis = false;
    this.startMoving();
  }

  /**
   * Redis's state (while it does not answer, the last one read) with what the journal
   * owes it: its entries in `pending` (less those just added to the queue), its gaps.
   */
  async state(): Promise<OutboxState> {
    const journal = await this.p.journal.state();
    const redis = await this.redisState();
    const owedGaps = this.gapsMoved === null ? this.gapsRecordedHere : Math.max(0, journal.replay_gaps - this.gapsMoved);
    const ages = [redis.oldest_pending_age_ms, journal.oldest_pending_age_ms].filter((a) => a !== null);
    // A full Redis blocks no write: the journal takes them.
    const redisBlocked = redis.outbox_storage.write_blocked_reason === 'store_full' ? null : redis.outbox_storage.write_blocked_reason;
    const blocked = this.journaling && journal.outbox_storage.write_blocked ? journal.outbox_storage.write_blocked_reason : redisBlocked;
    return {
      ...redis,
      pending: redis.pending + Math.max(0, journal.pending - this.movedUnacked),
      replay_gaps: redis.replay_gaps + owedGaps,
      last_error: this.down !== null ? { message: `Redis does not answer (${this.down}): events are kept in the outage journal`, at_unix_ms: Date.now() } : redis.last_error,
      outbox_storage: { store: 'redis', write_blocked: blocked !== null, write_blocked_reason: blocked, bytes: redis.outbox_storage.bytes + journal.outbox_storage.bytes },
      oldest_pending_age_ms: ages.length > 0 ? Math.max(...ages) : null,
      gaps: [...redis.gaps, ...(owedGaps > 0 ? journal.gaps.slice(-owedGaps) : [])],
    };
  }

  /** A read Redis does not answer is an outage too: the journal's move tells when it answers again. */
  private async redisState(): Promise<OutboxState> {
    if (this.redis && this.down === null) {
      try {
        this.lastRedis = await this.toRedis(this.redis.state());
      } catch (err) {
        this.outage(err instanceof Error ? err : String(err));
        this.startMoving();
      }
    }
    // Before Redis ever answered: nothing of Redis's part is known.
    return this.lastRedis ?? outboxState('redis', noCounts(), null, [], null, 0);
  }

  /** Stops the move (a move cut short is done again at the next start), then closes both stores. */
  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    await this.p.deadline.within(this.moving ?? Promise.resolve());
    await Promise.all([this.redis?.close(), this.p.journal.close()]);
  }
}
