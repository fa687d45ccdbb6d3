/**
 * The Redis outbox of one sink, as its node keeps it: a BullMQ queue per sink per node
 * (keys in bullmq-keys.ts), one job per append of up to `batchSize` events, so BullMQ
 * moves one job per request under a backlog, and the BullMQ dashboard shows each sink's
 * backlog. Jobs are delivered by BullMQ Workers (bullmq-delivery.ts), in this
 * node or apart from it; this side appends, records gaps, lists and replays dead
 * letters (BullMQ's failed set) and reads the state. Retries keep BullMQ's own
 * attempts and delayed set: jobs carry `backoff: { type: 'retry-at' }`, and the
 * worker's backoff strategy returns the time the delivery asked for.
 *
 * Counters live in the sink's `state` hash: the workers count deliveries, failed
 * attempts and dead letters (bullmq-counts.ts), this side the bytes and events of its
 * appends, in a MULTI right after the job moves they count. A counter write Redis refuses (out of memory) is owed
 * and added to the next one (owed-counters.ts). Bytes are reset when the queue is
 * found empty at open, and after a failed append by the first state read that finds
 * it empty (see settleEmpty); the node's budget follows the hash, which every worker
 * updates.
 *
 * Redis for a fleet: `maxmemory-policy noeviction` (an evicted job is a lost event;
 * with noeviction a full Redis refuses writes: appends fail with write_blocked
 * `store_full`, which the SpillOutbox takes to the embedded store, moving waiting jobs
 * there with evacuate() to free Redis), `appendonly yes` so a restart keeps the queues,
 * and `appendfsync always`: with `everysec` Redis may acknowledge a write whose AOF
 * write it postponed behind a running fsync (up to 2 s), and a crash of Redis then
 * loses it.
 */
import type { Queue } from 'bullmq';
import type { ChainableCommander, Redis } from 'ioredis';
import type { DeadLetter, OutboxAppend, OutboxState, ReplayGap } from '../contracts/outbox.js';
import type { EvacuableOutbox } from './spill-outbox.js';
import { bytesOf, isOutOfMemory, jobData, jobOpts, type JobData } from './bullmq-jobs.js';
import { listBullmqDeadLetters, replayBullmqDeadLetters } from './bullmq-dead-letters.js';
import { OUTBOX_GAPS_KEPT } from '../contracts/outbox.js';
import { jobIdFor, type SinkKeys } from './bullmq-keys.js';
import { countJobs, readBullmqSink, type SinkRead } from './bullmq-sink-state.js';
import { claimCounts } from './bullmq-counts.js';
import type { OutboxBudget } from './outbox-budget.js';
import { OutboxClosed, OutboxUnavailable } from './outbox-errors.js';
import { OwedCounters, type CounterDeltas } from './owed-counters.js';
import { AppendSignal } from './append-signal.js';
import { evacuateWaiting } from './bullmq-evacuate.js';
import { within } from '../base/within.js';
import { RedisLossWatch, type LossWatchParts } from './redis-loss-watch.js';

export interface BullmqOutboxParts {
  sink: string;
  keys: SinkKeys;
  queue: Queue<JobData, string, string>;
  /** The producer connection (fails fast while Redis is down), shared by the node's sinks. */
  redis: Redis;
  budget: OutboxBudget;
  onClose: (outbox: BullmqOutbox) => void;
  /** How a loss of the outbox by Redis is told and recovered (redis-loss-watch.ts). */
  loss: Omit<LossWatchParts, 'sink' | 'redis' | 'keys'>;
  /** The most events of one job (the sink's batch_size). @defaultValue 1 */
  batchSize?: number;
}

/** How long close() waits for the queue to close. */
const CLOSE_WAIT_MS = 3000;

/** How many ids of a failed append's events are remembered with their job's id (claimCounts). */
const FAILED_APPENDS_KEPT = 65_536;

/** An empty queue's byte and event counts are 0 and its append times are stale. */
function resetEmpty(redis: Redis, keys: SinkKeys): Promise<unknown> {
  return redis.multi().hset(keys.state, 'bytes', 0, 'pending', 0, 'dead_letters', 0).del(keys.enqueued).exec();
}

/** A job's events and id. */
interface Group {
  id: string;
  events: readonly OutboxAppend[];
}

/** An append's entries in jobs of up to `size`, each named by its first event. */
function groupsOf(entries: readonly OutboxAppend[], size: number): Group[] {
  const groups: Group[] = [];
  for (let from = 0; from < entries.length; from += size) {
    const events = entries.slice(from, from + size);
    groups.push({ id: jobIdFor(events[0]!.id), events });
  }
  return groups;
}

export class BullmqOutbox implements EvacuableOutbox {
  readonly sink: string;
  private readonly appended = new AppendSignal();
  private readonly owed = new OwedCounters();
  private closed = false;
  /** Appends begun by this instance, and how many are under way. */
  private appends = 0;
  private appending = 0;
  /** Set by a failed append: Redis may still run its byte count later (see settleEmpty). */
  private suspect = false;
  /** The job of each event of a failed append, which Redis may still run (claimCounts); oldest first. */
  private readonly failedJobOf = new Map<string, string>();

  private watch!: RedisLossWatch;

  private constructor(private readonly p: BullmqOutboxParts) {
    this.sink = p.sink;
  }

  /** Loads the byte count, and tells whether Redis lost the outbox while the node was stopped. */
  static async open(parts: BullmqOutboxParts): Promise<BullmqOutbox> {
    const { queue, redis, keys, budget, sink } = parts;
    const counts = await countJobs(queue);
    if (counts.pending === 0 && counts.dead_letters === 0) await resetEmpty(redis, keys);
    budget.load(sink, Number((await redis.hget(keys.state, 'bytes')) ?? 0));
    const outbox = new BullmqOutbox(parts);
    // After a loss the byte count is what Redis holds now, and the loss is a gap.
    outbox.watch = await RedisLossWatch.open({ ...parts.loss, sink, redis, keys }, async (gap) => {
      budget.load(sink, Number((await redis.hget(keys.state, 'bytes')) ?? 0));
      if (gap) await outbox.recordGap(gap, false);
    });
    await outbox.state();
    outbox.watch.remember();
    return outbox;
  }

  async append(entries: readonly OutboxAppend[]): Promise<void> {
    this.assertOpen();
    if (entries.length === 0) return;
    this.appends++;
    this.appending++;
    // Appended in bus order: the first has the lowest sequence, the last the highest.
    const done = this.watch.appending(entries[0]!.sequence, entries.at(-1)!.sequence);
    try {
      await this.appendNow(entries);
    } catch (err) {
      this.suspect = true;
      throw err;
    } finally {
      this.appending--;
      done();
    }
  }

  private async appendNow(entries: readonly OutboxAppend[]): Promise<void> {
    const { keys, redis, budget, queue } = this.p;
    const bytes = bytesOf(entries);
    const groups = groupsOf(entries, this.p.batchSize ?? 1);
    await budget.reserve(this.sink, bytes);
    const now = Date.now();
    try {
      // Counted before the add: a crash in between over-counts (blocks early), never under-counts.
      // Its members come first for the same reason: a job is never pending unseen by the loss watch.
      await redis
        .multi()
        .hincrby(keys.state, 'bytes', bytes)
        .hincrby(keys.state, 'pending', entries.length)
        .zadd(keys.enqueued, 'NX', ...groups.flatMap((g) => [now, g.id]))
        .exec();
    } catch (err) {
      budget.release(this.sink, bytes);
      throw this.storeError(err);
    }
    try {
      await queue.addBulk(groups.map((g) => ({ name: 'envelope', data: jobData(g.events), opts: jobOpts(g.id, now) })));
    } catch (err) {
      const unstored = await this.unstored(groups);
      const events = unstored.flatMap((g) => g.events);
      if (unstored.length > 0) {
        const unstoredBytes = bytesOf(events);
        budget.release(this.sink, unstoredBytes);
        await this.count({ bytes: -unstoredBytes, pending: -events.length }, (m) => m.zrem(keys.enqueued, ...unstored.map((g) => g.id)));
      }
      this.rememberFailed(unstored);
      // Those kept are delivered: the caller keeps only the rest elsewhere, or counts only them as lost.
      const keptSome = unstored.length < groups.length;
      if (keptSome) this.appended.fire();
      throw this.storeError(err, keptSome ? events : undefined);
    }
    budget.committed();
    this.appended.fire();
  }

  /** The jobs of a failed addBulk that Redis does not hold (it may have run some of the batch); all when it cannot tell. */
  private async unstored(groups: readonly Group[]): Promise<Group[]> {
    const { redis, keys } = this.p;
    const found = await redis
      .pipeline(groups.map((g) => ['exists', keys.base + g.id]))
      .exec()
      .catch(() => null);
    return groups.filter((_, i) => found?.[i]?.[1] !== 1);
  }

  private rememberFailed(groups: readonly Group[]): void {
    for (const g of groups) for (const e of g.events) this.failedJobOf.set(e.id, g.id);
    for (const id of this.failedJobOf.keys()) {
      if (this.failedJobOf.size <= FAILED_APPENDS_KEPT) break;
      this.failedJobOf.delete(id);
    }
  }

  onAppend(listener: () => void): () => void {
    return this.appended.on(listener);
  }

  /**
   * An append that failed on a hung Redis (its command timed out, its entries went to
   * the embedded store) may still run once Redis resumes, counting bytes no job holds.
   * So after a failed append, the first state read that finds the queue empty, with no
   * append of this instance begun since the count, resets the byte count, as an open
   * does. The reset is sent in the tick of that check: an append begun later queues
   * its own count after it on this connection.
   */
  private async settleEmpty(): Promise<void> {
    const begun = this.appends;
    try {
      const counts = await countJobs(this.p.queue);
      if (counts.pending > 0 || counts.dead_letters > 0 || this.appends !== begun || this.appending > 0) return;
      this.suspect = false;
      for (const field of ['bytes', 'pending', 'dead_letters'] as const) this.owed.drop(field);
      this.p.budget.load(this.sink, 0);
      await resetEmpty(this.p.redis, this.p.keys);
    } catch {
      // Redis did not answer: the next state read tries again.
      this.suspect = true;
    }
  }

  async listDeadLetters(limit: number): Promise<DeadLetter[]> {
    this.assertOpen();
    return listBullmqDeadLetters(this.p.queue, limit);
  }

  async replayDeadLetters(ids?: readonly string[]): Promise<number> {
    this.assertOpen();
    return replayBullmqDeadLetters(this.p.queue, this.p.redis, this.p.keys, ids);
  }

  async recordGap(gap: ReplayGap, continuesLast: boolean): Promise<void> {
    this.assertOpen();
    const { redis, keys } = this.p;
    const last = continuesLast ? await redis.lindex(keys.gaps, -1) : null;
    if (last) {
      await redis.lset(keys.gaps, -1, JSON.stringify({ ...(JSON.parse(last) as ReplayGap), to_sequence: gap.to_sequence }));
      return;
    }
    const record: ReplayGap = { from_sequence: gap.from_sequence, to_sequence: gap.to_sequence, at_unix_ms: gap.at_unix_ms };
    await redis
      .multi()
      .hincrby(keys.state, 'replay_gaps', 1)
      .rpush(keys.gaps, JSON.stringify(record))
      .ltrim(keys.gaps, -OUTBOX_GAPS_KEPT, -1)
      .exec();
  }

  async state(): Promise<OutboxState> {
    this.assertOpen();
    await this.payOwed();
    const mark = this.watch.mark();
    const read = (): Promise<SinkRead> => readBullmqSink(this.p.queue, this.p.redis, this.p.keys, this.p.budget.reason, mark);
    let found = await read();
    if (await this.watch.check(found, mark)) found = await read();
    const state = this.owed.adjust(found.state);
    if (this.appending === 0) this.p.budget.load(this.sink, state.outbox_storage.bytes);
    if (this.suspect && state.pending === 0 && state.dead_letters === 0) await this.settleEmpty();
    const blocked = this.p.budget.reason;
    return { ...state, outbox_storage: { ...state.outbox_storage, write_blocked: blocked !== null, write_blocked_reason: blocked } };
  }

  claimCounts(ids: readonly string[]): Promise<boolean[]> {
    this.assertOpen();
    return claimCounts(
      this.p.redis,
      this.p.keys,
      ids.map((id) => ({ id, jobId: this.failedJobOf.get(id) ?? jobIdFor(id) })),
    );
  }

  /** evacuateWaiting (bullmq-evacuate.ts), with the byte count and budget following. */
  async evacuate(max: number, into: (entries: OutboxAppend[]) => Promise<void>): Promise<number> {
    this.assertOpen();
    try {
      const { moved, bytes } = await evacuateWaiting(this.p.redis, this.p.keys, max, into);
      if (moved === 0) return 0;
      this.p.budget.release(this.sink, bytes);
      await this.count({ bytes: -bytes, pending: -moved });
      return moved;
    } catch (err) {
      throw this.storeError(err);
    }
  }

  /**
   * Closes the queue. A Redis that stopped answering would hold this (and the node's
   * exit) for ever, so it is waited for at most CLOSE_WAIT_MS.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.watch.remember();
    this.appended.clear();
    this.p.onClose(this);
    await within(this.p.queue.close(), CLOSE_WAIT_MS);
  }

  /** Writes counter deltas with what earlier writes owe (OwedCounters). */
  private count(deltas: CounterDeltas, more?: (multi: ChainableCommander) => void): Promise<void> {
    return this.owed.write(this.p.redis, this.p.keys.state, deltas, more);
  }

  /** Writes the counts a full Redis refused; state is read every second, so they land soon after it has room. */
  private async payOwed(): Promise<void> {
    if (this.owed.any) await this.count({});
  }

  /** Redis refusing for lack of memory blocks writes; anything else means it cannot be reached. */
  private storeError(err: unknown, unstored?: readonly OutboxAppend[]): Error {
    if (err instanceof OutboxClosed) return err;
    if (isOutOfMemory(err)) return this.p.budget.storeFull({ cause: err, ...(unstored && { unstored }) });
    return new OutboxUnavailable(`the Redis outbox of sink ${this.sink} is unavailable: ${(err as Error)?.message ?? String(err)}`, {
      cause: err,
      ...(unstored && { unstored }),
    });
  }

  private assertOpen(): void {
    if (this.closed) throw new OutboxClosed(`the outbox of sink ${this.sink} is closed`);
  }
}
