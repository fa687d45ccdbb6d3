import type { Key, RootDatabase } from 'lmdb';
import type { OutboxLimits, OutboxStore } from '../contracts/outbox.js';
import { openNodeDb, openOutboxEnv, openSinkDb, persistWriteBlock, readWriteBlock } from './lmdb-env.js';
import { LmdbOutbox } from './lmdb-outbox.js';
import type { SinkDb } from './lmdb-records.js';
import { OutboxBudget } from './outbox-budget.js';

export interface LmdbOutboxStoreOptions {
  /** node.state_dir; the environment lives in its `outbox` subdirectory. */
  stateDir: string;
  limits: OutboxLimits;
  /** Told when persisting the write-block state failed (the live state stays right). */
  onError?: (err: unknown) => void;
}

/** The embedded store of a node without Redis: one LMDB environment in the state dir. */
export class LmdbOutboxStore implements OutboxStore<LmdbOutbox> {
  readonly kind = 'embedded' as const;
  private readonly env: RootDatabase<unknown, Key>;
  private readonly nodeDb: SinkDb;
  private readonly budget: OutboxBudget;
  private readonly outboxes = new Set<LmdbOutbox>();

  constructor(opts: LmdbOutboxStoreOptions) {
    this.env = openOutboxEnv(opts.stateDir, false);
    this.nodeDb = openNodeDb(this.env);
    const onError = opts.onError ?? (() => undefined);
    this.budget = new OutboxBudget(
      opts.limits,
      opts.stateDir,
      (reason) => void persistWriteBlock(this.nodeDb, reason).catch(onError),
      readWriteBlock(this.nodeDb),
    );
  }

  async open(sink: string): Promise<LmdbOutbox> {
    const outbox = new LmdbOutbox(sink, openSinkDb(this.env, sink), this.budget, (o) => this.outboxes.delete(o));
    this.outboxes.add(outbox);
    return outbox;
  }

  setLimits(limits: OutboxLimits): void {
    this.budget.setLimits(limits);
  }

  async close(): Promise<void> {
    await Promise.all([...this.outboxes].map((o) => o.close()));
    await this.env.close();
  }
}
