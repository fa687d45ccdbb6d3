import { Redis } from 'ioredis';
import { FLEET_FORGET_MS, FLEET_INDEX, PRESENCE_EVERY_MS, PRESENCE_TTL_MS, presenceKey, type PresenceRecord } from './presence-record.js';

/** The fleet index drops nodes gone for FLEET_FORGET_MS at one write in this many: the trim need not be timely. */
const TRIM_EVERY_WRITES = 60;

/**
 * Keeps a node's presence in Redis (presence-record.ts): written once its connection is
 * ready and every PRESENCE_EVERY_MS, removed at a graceful stop; a node killed with kill -9 drops out
 * when the key lapses. Its own connection fails fast while Redis is down (no offline
 * queue): the node goes on proxying and reappears with the first write Redis takes.
 * A write is two commands (SET, ZADD), pipelined rather than in a MULTI, which would
 * cost two more: the index entry only tells `weir fleet` where to look.
 */
export class FleetPresence {
  private readonly redis: Redis;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private stopped = false;
  private writes = 0;

  constructor(
    url: string,
    private readonly nodeId: string,
    private readonly record: () => Promise<PresenceRecord>,
    private readonly everyMs = PRESENCE_EVERY_MS,
  ) {
    this.redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 3000 });
    // Connection errors are the outage itself; the next refresh tries again.
    this.redis.on('error', () => undefined);
  }

  start(): void {
    // Without an offline queue a write before the connection is ready fails: the first
    // write waits for it, and a connection back after an outage writes at once.
    this.redis.on('ready', () => this.refresh());
    if (this.redis.status === 'ready') this.refresh();
    this.timer = setInterval(() => this.refresh(), this.everyMs);
    this.timer.unref();
  }

  private refresh(): void {
    if (this.stopped) return;
    this.writing = this.writing.then(async () => {
      const record = JSON.stringify(await this.record());
      const now = Date.now();
      const write = this.redis.pipeline().set(presenceKey(this.nodeId), record, 'PX', PRESENCE_TTL_MS).zadd(FLEET_INDEX, now, this.nodeId);
      if (this.writes++ % TRIM_EVERY_WRITES === 0) write.zremrangebyscore(FLEET_INDEX, '-inf', now - FLEET_FORGET_MS);
      await write.exec().catch(() => undefined);
    });
  }

  /** Removes the presence: the node leaves the fleet's list at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.writing;
    await this.redis
      .multi()
      .del(presenceKey(this.nodeId))
      .zrem(FLEET_INDEX, this.nodeId)
      .exec()
      .catch(() => undefined);
    this.redis.disconnect();
  }
}
