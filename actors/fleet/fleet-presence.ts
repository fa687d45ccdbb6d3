import { Redis } from 'ioredis';
import { FLEET_FORGET_MS, FLEET_INDEX, PRESENCE_EVERY_MS, PRESENCE_TTL_MS, presenceKey, type PresenceRecord } from './presence-record.js';

/**
 * Keeps a node's presence in Redis (presence-record.ts): written at start and every
 * PRESENCE_EVERY_MS, removed at a graceful stop; a node killed with kill -9 drops out
 * when the key lapses. Its own connection fails fast while Redis is down (no offline
 * queue): the node goes on proxying and reappears with the first write Redis takes.
 */
export class FleetPresence {
  private readonly redis: Redis;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    url: string,
    private readonly nodeId: string,
    private readonly record: () => PresenceRecord,
    private readonly everyMs = PRESENCE_EVERY_MS,
  ) {
    this.redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 3000 });
    // Connection errors are the outage itself; the next refresh tries again.
    this.redis.on('error', () => undefined);
  }

  start(): void {
    this.refresh();
    this.timer = setInterval(() => this.refresh(), this.everyMs);
    this.timer.unref();
  }

  private refresh(): void {
    this.writing = this.writing.then(async () => {
      const now = Date.now();
      await this.redis
        .multi()
        .set(presenceKey(this.nodeId), JSON.stringify(this.record()), 'PX', PRESENCE_TTL_MS)
        .zadd(FLEET_INDEX, now, this.nodeId)
        .zremrangebyscore(FLEET_INDEX, '-inf', now - FLEET_FORGET_MS)
        .exec()
        .catch(() => undefined);
    });
  }

  /** Removes the presence: the node leaves the fleet's list at once. */
  async stop(): Promise<void> {
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
