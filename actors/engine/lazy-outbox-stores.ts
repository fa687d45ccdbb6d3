import type { Logger } from 'pino';
import type { StopDeadline } from '../base/stop-deadline.js';
import type { WeirConfig } from '../config/schema.js';
import type { OutboxOpenOptions, SinkOutbox } from '../contracts/outbox.js';
import { importLmdbOutbox } from '../upgrade/lmdb-import.js';
import { openOutboxStores, type OutboxStoreEvents, type OutboxStores } from '../outbox/outbox-stores.js';

export interface LazyOutboxStoresDeps {
  config: () => WeirConfig;
  /** Publishes an engine.warning. */
  warning: (code: string, message: string) => void;
  log: Logger;
  runFirstSequence: number;
  deadline: StopDeadline;
}

/**
 * The node's outbox stores, opened on the first sink that needs them, once: sinks of
 * different tags start side by side, and a second opening would claim the node id on
 * Redis against the first. One that failed (the id in use) is tried again by the next
 * sink's start. What the stores tell of Redis goes to the log and the bus.
 */
export class LazyOutboxStores {
  private stores: OutboxStores | null = null;
  private opening: Promise<OutboxStores> | null = null;
  private imported: Promise<void> | null = null;

  constructor(private readonly deps: LazyOutboxStoresDeps) {}

  async open(sink: string, opts?: OutboxOpenOptions): Promise<SinkOutbox> {
    this.opening ??= openOutboxStores(this.deps.config(), this.events()).then(
      (stores) => (this.stores = stores),
      (err: unknown) => {
        this.opening = null;
        throw err;
      },
    );
    const stores = await this.opening;
    // An LMDB outbox an earlier version left in the state dir becomes the sinks' journals
    // first; a failed import (a full disk) is tried again at the next open, as it skips
    // the sinks it imported already.
    this.imported ??= importLmdbOutbox(this.deps.config().node.state_dir).catch((err: unknown) => {
      this.imported = null;
      throw err;
    });
    await this.imported;
    return stores.open(sink, opts);
  }

  /**
   * Whether the outbox reaches Redis now (RedisHealth: what redis_unreachable and
   * redis_recovered tell); false before a Webhook sink opened the stores, null without
   * `redis` (a section that changes only with a restart).
   */
  redisUp(): boolean | null {
    if (!this.deps.config().redis) return null;
    return this.stores?.redisUp() ?? false;
  }

  close(): Promise<void> {
    return this.stores?.close() ?? Promise.resolve();
  }

  private events(): OutboxStoreEvents {
    const { log, warning } = this.deps;
    const warn = (code: string) => (message: string) => {
      log.warn({ code }, message);
      warning(code, message);
    };
    return {
      onRedisError: (err) => log.debug({ err: err.message }, 'redis error'),
      unreachable: warn('redis_unreachable'),
      reachable: warn('redis_recovered'),
      lost: warn('outbox_lost'),
      claimLost: (message) => {
        log.error({ code: 'node_id_in_use' }, message);
        warning('node_id_in_use', message);
      },
      runFirstSequence: this.deps.runFirstSequence,
      deadline: this.deps.deadline,
    };
  }
}
