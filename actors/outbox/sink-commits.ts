import type { Key } from 'lmdb';
import type { ReplayGap } from '../contracts/outbox.js';
import { batched, commitCause } from './lmdb-commit.js';
import { COUNTERS_KEY, GAPS_KEY, readCounters, readGaps, undoCounts, type Counters, type SinkDb } from './lmdb-records.js';
import { OutboxUnavailable } from './outbox-errors.js';

interface Waiting {
  ops: (counters: Counters) => void;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * One sink's writes to its LMDB store, committed in groups, with the counters and the
 * gaps they move. The embedded outbox is the sink's only writer, so the counters and
 * gaps are kept here in memory and written whole in each batch.
 */
export class SinkCommits {
  readonly counters: Counters;
  private gapList: ReplayGap[];
  /** Changes of the gaps made and stored: when they differ, the next batch stores the gaps. */
  private gapsVersion = 0;
  private storedGapsVersion = 0;
  /** Writes waiting for the batch being committed (see write). */
  private readonly waiting: Waiting[] = [];
  /** The loop committing `waiting`, while it runs. */
  private committing: Promise<void> | null = null;

  constructor(
    private readonly db: SinkDb,
    private readonly sink: string,
  ) {
    this.counters = readCounters(db);
    this.gapList = readGaps(db);
  }

  get gaps(): readonly ReplayGap[] {
    return this.gapList;
  }

  /** Replaces the gaps; the next batch stores them. */
  setGaps(gaps: ReplayGap[]): void {
    this.gapList = gaps;
    this.gapsVersion += 1;
  }

  /**
   * The writes `ops` issues and the counters as it changed them (and the gaps, when
   * they changed), committed in one batch; resolves once LMDB has flushed the commit to
   * disk. Writes that come while a batch commits wait and go together in the next one
   * (one transaction for all of them), so a busy outbox commits as often as LMDB can,
   * not once per call. A commit that fails (a full disk) takes back what its writes did
   * to the counters and rejects each of them with OutboxUnavailable: nothing of them
   * happened, and a caller may try again once there is room.
   */
  write(ops: (counters: Counters) => void): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ ops, resolve, reject });
      this.commitSoon();
    });
  }

  /** A write of `ops` (inside write's callback). */
  put(key: Key, value: unknown): void {
    batched(this.db.put(key, value));
  }

  remove(key: Key): void {
    batched(this.db.remove(key));
  }

  /** Resolves once no batch is committing: the writes already made have reached LMDB. */
  async idle(): Promise<void> {
    while (this.committing) await this.committing;
  }

  private commitSoon(): void {
    if (this.committing) return;
    this.committing = this.commitWaiting().finally(() => {
      this.committing = null;
      if (this.waiting.length > 0) this.commitSoon();
    });
  }

  /** Commits the waiting writes batch after batch; the next batch starts while the last one flushes. */
  private async commitWaiting(): Promise<void> {
    for (let group = this.waiting.splice(0); group.length > 0; group = this.waiting.splice(0)) {
      const before = { ...this.counters };
      let after = before;
      const gapsVersion = this.gapsVersion;
      const failed = (err: unknown): void => {
        undoCounts(this.counters, before, after);
        void this.unavailable(err).then((error) => group.forEach((w) => w.reject(error)));
      };
      try {
        await this.db.batch(() => {
          for (const w of group) w.ops(this.counters);
          after = { ...this.counters };
          this.put(COUNTERS_KEY, after);
          if (gapsVersion !== this.storedGapsVersion) this.put(GAPS_KEY, this.gapList);
        });
      } catch (err) {
        failed(err);
        continue;
      }
      this.storedGapsVersion = Math.max(this.storedGapsVersion, gapsVersion);
      this.db.flushed.then(() => group.forEach((w) => w.resolve()), failed);
    }
  }

  private async unavailable(err: unknown): Promise<OutboxUnavailable> {
    const cause = await commitCause(err);
    return new OutboxUnavailable(`the embedded outbox of sink ${this.sink} could not commit: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}
