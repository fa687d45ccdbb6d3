import type { ChainableCommander, Redis } from 'ioredis';
import type { OutboxState } from '../contracts/outbox.js';

export type CounterField = 'total_delivered' | 'total_failed' | 'bytes' | 'pending' | 'dead_letters';
export type CounterDeltas = Partial<Record<CounterField, number>>;

const FIELDS: readonly CounterField[] = ['total_delivered', 'total_failed', 'bytes', 'pending', 'dead_letters'];

/**
 * The state hash's counter deltas that Redis refused after the job moves they count
 * had been made: a Redis out of memory still runs BullMQ's completing script (its
 * first write frees memory) but refuses HINCRBY. They are added to the next counter
 * write, and to what state() reads meanwhile; a restart before then loses them.
 */
export class OwedCounters {
  private readonly owed: Record<CounterField, number> = { total_delivered: 0, total_failed: 0, bytes: 0, pending: 0, dead_letters: 0 };

  /**
   * Writes `deltas` plus what is owed, and the commands `more` adds, to the hash `key`
   * in one MULTI. A refused one is owed, not thrown: the job moves it counts are made.
   */
  async write(redis: Redis, key: string, deltas: CounterDeltas, more?: (multi: ChainableCommander) => void): Promise<void> {
    const multi = redis.multi();
    const sum: CounterDeltas = {};
    for (const field of FIELDS) {
      const n = (deltas[field] ?? 0) + this.owed[field];
      this.owed[field] = 0;
      if (n !== 0) {
        sum[field] = n;
        multi.hincrby(key, field, n);
      }
    }
    more?.(multi);
    try {
      await multi.exec();
    } catch {
      this.add(sum);
    }
  }

  get any(): boolean {
    return FIELDS.some((field) => this.owed[field] !== 0);
  }

  /** Forgets what is owed of `field`: its value was set outright. */
  drop(field: CounterField): void {
    this.owed[field] = 0;
  }

  private add(deltas: CounterDeltas): void {
    for (const field of FIELDS) this.owed[field] += deltas[field] ?? 0;
  }

  /** A state read from Redis with what is owed added (pending and dead letters follow BullMQ's counts: bullmq-sink-state.ts). */
  adjust(state: OutboxState): OutboxState {
    return {
      ...state,
      total_delivered: state.total_delivered + this.owed.total_delivered,
      total_failed: state.total_failed + this.owed.total_failed,
      outbox_storage: { ...state.outbox_storage, bytes: state.outbox_storage.bytes + this.owed.bytes },
    };
  }
}
