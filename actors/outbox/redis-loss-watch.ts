import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import type { RedisClient } from '../redis/redis-client.js';
import type { OutboxState, ReplayGap } from '../contracts/outbox.js';
import { readStateFile, writeJsonFileSync } from '../files/atomic-json.js';
import type { SinkKeys } from './bullmq-keys.js';
import type { SinkRead } from './bullmq-sink-state.js';

const remembered = z.object({
  store_id: z.string().min(1),
  /** No event below this sequence was pending in the sink's Redis outbox when it was written. */
  floor: z.number().int(),
  total_delivered: z.number().int(),
  total_failed: z.number().int(),
  replay_gaps: z.number().int(),
});
type RememberedOutbox = z.infer<typeof remembered>;
const memoryFile = z.record(z.string(), remembered);

/**
 * What `<state_dir>/redis-outboxes.json` keeps of each Redis outbox by state hash key,
 * written as it opens and closes, so that a loss while the node was stopped is told at
 * the next open. Best effort: a damaged file counts as empty, an unwritable one only
 * loses this safeguard.
 */
export class RedisOutboxMemory {
  private readonly file: string;

  constructor(stateDir: string) {
    this.file = path.join(stateDir, 'redis-outboxes.json');
  }

  get(stateKey: string): RememberedOutbox | undefined {
    return this.read()[stateKey];
  }

  set(stateKey: string, value: RememberedOutbox): void {
    const all = { ...this.read(), [stateKey]: value };
    try {
      writeJsonFileSync(this.file, all);
    } catch {
      // The next open finds the previous record, or none: a loss is then seen only while running.
    }
  }

  private read(): Record<string, RememberedOutbox> {
    const read = readStateFile(this.file, memoryFile);
    return 'value' in read ? read.value : {};
  }
}

export interface LossWatchParts {
  sink: string;
  redis: RedisClient;
  keys: SinkKeys;
  /** Where the node keeps what it knows of its Redis outboxes; without it a loss is seen only while running. */
  memory?: RedisOutboxMemory;
  /** The first bus sequence of this engine run: every earlier event was published before this open. */
  runFirstSequence: number;
  /** Told when Redis lost the outbox (engine.warning outbox_lost). */
  onLost?: (message: string) => void;
}

/** What a recovery puts back: the gap, and the counters as last read. */
interface Recovery {
  gap: ReplayGap | null;
  counters: Pick<OutboxState, 'total_delivered' | 'total_failed' | 'replay_gaps' | 'gaps'> & { dead_letters?: number };
  when: string;
}

const NO_COUNTERS: Recovery['counters'] = { total_delivered: 0, total_failed: 0, replay_gaps: 0, gaps: [] };

/**
 * Tells when Redis lost a sink's outbox (restarted without its data, failed over to an
 * empty replica, flushed), rather than let pending events vanish and counters fall to 0
 * unsaid. The state hash carries a `store_id` from the first open: a read without it is
 * the loss. What it may have held becomes a replay gap, from the lowest sequence that
 * could be pending (`floor`) to the highest appended; the counters return as last read.
 */
export class RedisLossWatch {
  private floor: number;
  private appendedThrough: number;
  /** The lowest sequence of each append under way. */
  private readonly inFlight = new Set<number>();
  private last: Recovery['counters'] = NO_COUNTERS;
  private recovering: Promise<void> | null = null;

  private constructor(
    private readonly p: LossWatchParts,
    private readonly storeId: string,
    private readonly recordLoss: (gap: ReplayGap | null) => Promise<void>,
  ) {
    this.floor = p.runFirstSequence;
    this.appendedThrough = p.runFirstSequence - 1;
  }

  /**
   * Marks the state hash as this outbox's. One the memory knows and Redis no longer holds
   * was lost while the node was stopped: recovered, its gap recorded by `recordLoss`.
   */
  static async open(p: LossWatchParts, recordLoss: (gap: ReplayGap | null) => Promise<void>): Promise<RedisLossWatch> {
    const found = await p.redis.hget(p.keys.state, 'store_id');
    const watch = new RedisLossWatch(p, found ?? randomUUID(), recordLoss);
    if (found) return watch;
    const before = p.memory?.get(p.keys.state);
    if (!before) {
      await p.redis.hset(p.keys.state, 'store_id', watch.storeId);
      return watch;
    }
    await watch.recovered({
      gap: gapOf(before.floor, p.runFirstSequence - 1),
      counters: { total_delivered: before.total_delivered, total_failed: before.total_failed, replay_gaps: before.replay_gaps, gaps: [] },
      when: 'while the node was stopped',
    });
    return watch;
  }

  /** Called as an append of sequences `low`..`high` begins; `done` when it ended, however. */
  appending(low: number, high: number): () => void {
    this.appendedThrough = Math.max(this.appendedThrough, high);
    this.inFlight.add(low);
    return () => this.inFlight.delete(low);
  }

  /** Taken right before a read: what of the appends under way and to come the read may not show yet. */
  mark(): number {
    return Math.min(this.appendedThrough + 1, ...this.inFlight);
  }

  /** Takes a read begun at `mark`; resolves true when it found the outbox lost (and recovered it: read again). */
  async check(read: SinkRead, mark: number): Promise<boolean> {
    if (read.storeId === this.storeId) {
      this.floor = Math.min(read.oldestSequence ?? Infinity, mark);
      this.last = read.state;
      return false;
    }
    this.recovering ??= this.recovered({ gap: gapOf(this.floor, this.appendedThrough), counters: this.last, when: 'while the node ran' }).finally(
      () => (this.recovering = null),
    );
    await this.recovering;
    // What came before is delivered or in the gap now.
    this.floor = mark;
    return true;
  }

  /** Writes down what a next open needs to tell a loss while the node was stopped. */
  remember(): void {
    const { total_delivered, total_failed, replay_gaps } = this.last;
    this.p.memory?.set(this.p.keys.state, { store_id: this.storeId, floor: this.floor, total_delivered, total_failed, replay_gaps });
  }

  /** The mark again, the counters and gaps as last read, then the gap itself. */
  private async recovered(r: Recovery): Promise<void> {
    const { redis, keys } = this.p;
    const { total_delivered, total_failed, replay_gaps, gaps } = r.counters;
    const m = redis.multi().hset(keys.state, 'store_id', this.storeId);
    m.hincrby(keys.state, 'total_delivered', total_delivered).hincrby(keys.state, 'total_failed', total_failed).hincrby(keys.state, 'replay_gaps', replay_gaps);
    if (gaps.length > 0) m.rpush(keys.gaps, ...gaps.map((g) => JSON.stringify(g)));
    await m.exec();
    await this.recordLoss(r.gap);
    const range = r.gap ? `events ${r.gap.from_sequence}..${r.gap.to_sequence} it may have held are counted as a replay gap` : 'nothing was pending in it';
    // Dead letters are out of the sequence ranges: only their number can be told.
    const dead = r.counters.dead_letters ? `; the dead letters it held (${r.counters.dead_letters}) are gone` : '';
    this.p.onLost?.(
      `Redis lost the outbox of sink "${this.p.sink}" ${r.when} (restarted without its data, or flushed): ${range}${dead}; its counters are restored as last read`,
    );
  }
}

function gapOf(from: number, to: number): ReplayGap | null {
  return from <= to ? { from_sequence: from, to_sequence: to, at_unix_ms: Date.now() } : null;
}
