import { connectRedis, type RedisAddress, type RedisClient } from '../redis/redis-client.js';
import { FLEET_FORGET_MS, FLEET_INDEX, PRESENCE_EVERY_MS, PRESENCE_TTL_MS, presenceKey, type PresenceRecord } from './presence-record.js';

/** The fleet index drops nodes gone for FLEET_FORGET_MS at one write in this many: the trim need not be timely. */
const TRIM_EVERY_WRITES = 60;

/**
 * Keeps a node's presence in Redis (presence-record.ts): written once its connection is
 * ready and every PRESENCE_EVERY_MS, removed at a graceful stop; a node killed with kill -9 drops out
 * when the key lapses. Its own connection fails fast while Redis is down (no offline
 * queue): the node goes on proxying and reappears with the first write Redis takes.
 * A write is two commands (SET, ZADD), sent side by side, never in one pipeline or
 * MULTI: on a cluster the presence and the fleet index live in different slots, and
 * the index entry only tells `weir fleet` where to look.
 */
export class FleetPresence {
  private readonly redis: RedisClient;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private stopped = false;
  private writes = 0;

  constructor(
    url: RedisAddress,
    private readonly nodeId: string,
    private readonly record: () => Promise<PresenceRecord>,
    private readonly everyMs = PRESENCE_EVERY_MS,
  ) {
    this.redis = connectRedis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 3000 });
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
      const trim = this.writes++ % TRIM_EVERY_WRITES === 0;
      await Promise.all([
        this.redis.set(presenceKey(this.nodeId), record, 'PX', PRESENCE_TTL_MS),
        this.redis.zadd(FLEET_INDEX, now, this.nodeId),
        trim && this.redis.zremrangebyscore(FLEET_INDEX, '-inf', now - FLEET_FORGET_MS),
      ]).catch(() => undefined);
    });
  }

  /** Removes the presence: the node leaves the fleet's list at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.writing;
    await Promise.all([this.redis.del(presenceKey(this.nodeId)), this.redis.zrem(FLEET_INDEX, this.nodeId)]).catch(() => undefined);
    this.redis.disconnect();
  }
}
