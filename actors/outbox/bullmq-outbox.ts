/**
 * The Redis outbox of one sink, as its node keeps it: a BullMQ queue per sink per node
 * (keys in bullmq-keys.ts), one job per append of up to `batchSize` events (bodies of a
 * large one beside it: bullmq-bodies.ts), so BullMQ moves one job per request under a
 * backlog. BullMQ Workers deliver the jobs (bullmq-delivery.ts), in this node or apart
 * from it; this side adds jobs, records gaps, lists and replays dead letters (BullMQ's
 * failed set) and reads the state. Retries keep BullMQ's attempts and delayed set: jobs
 * carry `backoff: { type: 'retry-at' }`, and the worker's backoff strategy returns the
 * time the delivery asked for.
 *
 * Counters live in the sink's `state` hash, each written by a script once per job
 * (bullmq-counts.ts): this side counts the events and bytes of the jobs it added, the
 * workers count deliveries, failed attempts and dead letters. Adding a job id BullMQ
 * holds adds and counts nothing, so the outage journal's move may add the same jobs
 * again (after a crash, or an append that timed out and ran late).
 *
 * Redis for a fleet: `maxmemory-policy noeviction` (an evicted job is a lost event;
 * with noeviction a full Redis refuses writes, and the node keeps the appends in its
 * outage journal until Redis has room), `appendonly yes` so a restart keeps the
 * queues, and `appendfsync always`: with `everysec` Redis may acknowledge a write whose
 * AOF write it postponed behind a running fsync (up to 2 s), and a crash of Redis then
 * loses it.
 */
import type { Queue } from 'bullmq';
import type { RedisClient } from '../redis/redis-client.js';
import { refusalOf } from '../redis/redis-refusal.js';
import type { DeadLetter, Outbox, OutboxAppend, OutboxState, ReplayGap } from '../contracts/outbox.js';
import { bytesOf, groupsOf, INLINE_MAX_BYTES, isOutOfMemory, jobData, jobOpts, timed, type JobData, type TimedGroup } from './bullmq-jobs.js';
import { listBullmqDeadLetters, replayBullmqDeadLetters } from './bullmq-dead-letters.js';
import { OUTBOX_GAPS_KEPT } from '../contracts/outbox.js';
import type { SinkKeys } from './bullmq-keys.js';
import { countJobs, readBullmqSink, type SinkRead } from './bullmq-sink-state.js';
import { countAdded } from './bullmq-counts.js';
import { joinBodies, writeBodies } from './bullmq-bodies.js';
import type { OutboxBudget } from './outbox-budget.js';
import { OutboxClosed, OutboxUnavailable } from './outbox-errors.js';
import { AppendSignal } from './append-signal.js';
import { within } from '../base/within.js';
import { RedisLossWatch, type LossWatchParts } from './redis-loss-watch.js';

export interface BullmqOutboxParts {
  sink: string;
  keys: SinkKeys;
  queue: Queue<JobData, string, string>;
  /** The producer connection (fails fast while Redis is down), shared by the node's sinks. */
  redis: RedisClient;
  budget: OutboxBudget;
  onClose: (outbox: BullmqOutbox) => void;
  /** How a loss of the outbox by Redis is told and recovered (redis-loss-watch.ts). */
  loss: Omit<LossWatchParts, 'sink' | 'redis' | 'keys'>;
  /** The most events of one job (the sink's batch_size). @defaultValue 1 */
  batchSize?: number;
}

/** How long close() waits for the queue to close. */
const CLOSE_WAIT_MS = 3000;

/** BEGIN_MOVE: KEYS: the moving hash; ARGV: job ids. Returns those marked settled (1). */
const BEGIN_MOVE = `
local settled = {}
for _, id in ipairs(ARGV) do
  if redis.call('HSETNX', KEYS[1], id, '0') == 0 and redis.call('HGET', KEYS[1], id) == '1' then settled[#settled + 1] = id end
end
return settled`;

export class BullmqOutbox implements Outbox {
  readonly sink: string;
  readonly batchSize: number;
  private readonly appended = new AppendSignal();
  private closed = false;
  private appending = 0;
  private watch!: RedisLossWatch;

  private constructor(private readonly p: BullmqOutboxParts) {
    this.sink = p.sink;
    this.batchSize = p.batchSize ?? 1;
  }

  /** Loads the byte count, and tells whether Redis lost the outbox while the node was stopped. */
  static async open(parts: BullmqOutboxParts): Promise<BullmqOutbox> {
    const { queue, redis, keys, budget, sink } = parts;
    const counts = await countJobs(queue);
    // An empty queue's byte and event counts are 0 and its append times are stale.
    if (counts.pending === 0 && counts.dead_letters === 0) await redis.multi().hset(keys.state, 'bytes', 0, 'pending', 0, 'dead_letters', 0).del(keys.enqueued).exec();
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

  append(entries: readonly OutboxAppend[]): Promise<void> {
    return this.add(timed(groupsOf(entries, this.batchSize), Date.now()));
  }

  /**
   * Adds the jobs of `groups`, each with its append time, and counts those new to BullMQ.
   * Rejects as append does; a rejected add may have added some of its jobs, and adding
   * them again adds and counts nothing.
   */
  async add(groups: readonly TimedGroup[]): Promise<void> {
    this.assertOpen();
    if (groups.length === 0) return;
    this.appending++;
    // Added in bus order: the first has the lowest sequence, the last the highest.
    const done = this.watch.appending(groups[0]!.events[0]!.sequence, groups.at(-1)!.events.at(-1)!.sequence);
    const { redis, keys, budget, queue } = this.p;
    const sizes = groups.map((g) => bytesOf(g.events));
    const bytes = sizes.reduce((a, b) => a + b, 0);
    const beside = groups.filter((_, i) => sizes[i]! > INLINE_MAX_BYTES);
    try {
      await budget.reserve(this.sink, bytes);
      try {
        // One round trip: the bodies' script is sent as it is called, before the add, on the
        // queue's own connection, so Redis runs it first (a worker that finds none waits).
        await Promise.all([
          beside.length > 0 && writeBodies(redis, keys, beside.map((g) => ({ id: g.id, stored: joinBodies(g.events) }))),
          queue.addBulk(groups.map((g, i) => ({ name: 'envelope', data: jobData(g.events, null, sizes[i]! <= INLINE_MAX_BYTES), opts: jobOpts(g.id, g.atUnixMs) }))),
        ]);
        await countAdded(redis, keys, groups.map((g, i) => ({ jobId: g.id, bytes: sizes[i]!, events: g.events.length, atUnixMs: g.atUnixMs })));
      } catch (err) {
        budget.release(this.sink, bytes);
        throw this.storeError(err);
      }
      budget.committed();
      this.appended.fire();
    } finally {
      this.appending--;
      done();
    }
  }

  onAppend(listener: () => void): () => void {
    return this.appended.on(listener);
  }

  async listDeadLetters(limit: number): Promise<DeadLetter[]> {
    this.assertOpen();
    return listBullmqDeadLetters(this.p, limit);
  }

  async replayDeadLetters(ids?: readonly string[]): Promise<number> {
    this.assertOpen();
    return replayBullmqDeadLetters(this.p, ids);
  }

  async recordGap(gap: ReplayGap, continuesLast: boolean): Promise<void> {
    this.assertOpen();
    const { redis, keys } = this.p;
    const last = continuesLast ? await this.command(redis.lindex(keys.gaps, -1)) : null;
    if (last) {
      await this.command(redis.lset(keys.gaps, -1, JSON.stringify({ ...(JSON.parse(last) as ReplayGap), to_sequence: gap.to_sequence })));
      return;
    }
    await this.addGaps([gap], 1);
  }

  /**
   * Adds `count` missed ranges of which `gaps` are the most recent, in one MULTI with
   * `more` (the move of the outage journal's gaps marks them moved in it).
   */
  async addGaps(gaps: readonly ReplayGap[], count: number, more: [field: string, value: number] | null = null): Promise<void> {
    this.assertOpen();
    const { redis, keys } = this.p;
    const records = gaps.map(({ from_sequence, to_sequence, at_unix_ms }) => JSON.stringify({ from_sequence, to_sequence, at_unix_ms }));
    const m = redis.multi().hincrby(keys.state, 'replay_gaps', count);
    if (records.length > 0) m.rpush(keys.gaps, ...records).ltrim(keys.gaps, -OUTBOX_GAPS_KEPT, -1);
    if (more) m.hset(keys.state, more[0], more[1]);
    await this.command(m.exec());
  }

  /**
   * Marks the jobs of `jobIds` as being added by the outage journal's move, and resolves
   * with those a worker settled already: an earlier move added them and was cut short
   * before it deleted their journal entries.
   */
  async beginMove(jobIds: readonly string[]): Promise<Set<string>> {
    if (jobIds.length === 0) return new Set();
    return new Set((await this.command(this.p.redis.eval(BEGIN_MOVE, 1, this.p.keys.moving, ...jobIds))) as string[]);
  }

  /** The move deleted the journal entries of `jobIds` (without ids: the journal is empty). */
  async endMove(jobIds?: readonly string[]): Promise<void> {
    const { redis, keys } = this.p;
    if (!jobIds) await this.command(redis.del(keys.moving));
    else if (jobIds.length > 0) await this.command(redis.hdel(keys.moving, ...jobIds));
  }

  /** A number field of the sink's state hash (0 when unset). */
  async stateField(field: string): Promise<number> {
    return Number((await this.command(this.p.redis.hget(this.p.keys.state, field))) ?? 0);
  }

  async state(): Promise<OutboxState> {
    this.assertOpen();
    const mark = this.watch.mark();
    const read = (): Promise<SinkRead> => readBullmqSink(this.p.redis, this.p.keys, this.p.budget.reason, mark);
    let found = await read();
    if (await this.watch.check(found, mark)) found = await read();
    const state = found.state;
    if (this.appending === 0) this.p.budget.load(this.sink, state.outbox_storage.bytes);
    const blocked = this.p.budget.reason;
    return { ...state, outbox_storage: { ...state.outbox_storage, write_blocked: blocked !== null, write_blocked_reason: blocked } };
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

  /** A Redis command whose failure rejects as an append's does (storeError). */
  private async command<T>(sent: Promise<T>): Promise<T> {
    try {
      return await sent;
    } catch (err) {
      throw this.storeError(err);
    }
  }

  /**
   * Redis refusing for lack of memory blocks writes; anything else means it cannot be
   * reached, for the reason the connection last met (a refused password or certificate).
   */
  private storeError(err: unknown): Error {
    if (err instanceof OutboxClosed) return err;
    if (isOutOfMemory(err)) return this.p.budget.storeFull({ cause: err });
    const why = refusalOf(this.p.redis, err);
    return new OutboxUnavailable(`the Redis outbox of sink ${this.sink} is unavailable: ${(why as Error)?.message ?? String(why)}`, { cause: why });
  }

  private assertOpen(): void {
    if (this.closed) throw new OutboxClosed(`the outbox of sink ${this.sink} is closed`);
  }
}
