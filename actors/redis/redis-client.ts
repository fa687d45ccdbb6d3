import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';

/** A connection to the fleet's Redis: a standalone server, or a Redis Cluster. */
export type RedisClient = Redis | Cluster;

/**
 * Where the fleet's Redis is: a standalone server's URL, or the seed URLs of a Redis
 * Cluster (config `redis.url` or `redis.cluster`).
 */
export type RedisAddress = string | { readonly cluster: readonly string[] };

/** What a connection is for; the options of each kind hold for both shapes of Redis. */
export type RedisConnectOptions = Pick<RedisOptions, 'enableOfflineQueue' | 'maxRetriesPerRequest' | 'commandTimeout' | 'lazyConnect' | 'retryStrategy'>;

/**
 * The one place weir connects to Redis. A cluster is reached through ioredis's Cluster
 * client from its seed URLs: it learns the slots, follows MOVED and ASK, and after a
 * failover finds the promoted replica by itself. The credentials and TLS (rediss://)
 * of the first seed apply to every node, which is how managed clusters are served.
 */
export function connectRedis(address: RedisAddress, options: RedisConnectOptions = {}): RedisClient {
  if (typeof address === 'string') return new Redis(address, options);
  const { enableOfflineQueue, lazyConnect, retryStrategy, ...perNode } = options;
  const seeds = address.cluster.map(seedOf);
  const clusterOptions: ClusterOptions = {
    redisOptions: { ...credentialsOf(address.cluster[0]!), ...perNode },
    ...(enableOfflineQueue !== undefined && { enableOfflineQueue }),
    ...(lazyConnect !== undefined && { lazyConnect }),
    ...(retryStrategy !== undefined && { clusterRetryStrategy: retryStrategy }),
  };
  return new Cluster(seeds, clusterOptions);
}

/**
 * The connection of a BullMQ Worker: for a standalone Redis its options, so BullMQ makes
 * its connections with its own reconnect policy; for a cluster a Cluster client, which
 * BullMQ needs (it duplicates it for its blocking wait), for the caller to disconnect.
 */
export function workerConnection(address: RedisAddress): { url: string; maxRetriesPerRequest: null } | Cluster {
  return typeof address === 'string' ? { url: address, maxRetriesPerRequest: null } : (connectRedis(address, { maxRetriesPerRequest: null }) as Cluster);
}

/** The URL that names the address in an error: the URL, or a cluster's first seed (redisLocation strips its credentials). */
export function firstUrl(address: RedisAddress): string {
  return typeof address === 'string' ? address : address.cluster[0]!;
}

/** The config's `redis` as an address: `url`, or `cluster`'s seeds. */
export function redisAddressOf(redis: { url?: { reveal(): string } | undefined; cluster?: readonly { reveal(): string }[] | undefined }): RedisAddress {
  return redis.cluster ? { cluster: redis.cluster.map((s) => s.reveal()) } : redis.url!.reveal();
}

function seedOf(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(parsed.port) || 6379 };
}

function credentialsOf(url: string): Pick<RedisOptions, 'username' | 'password' | 'tls'> {
  const parsed = new URL(url);
  return {
    ...(parsed.username !== '' && { username: decodeURIComponent(parsed.username) }),
    ...(parsed.password !== '' && { password: decodeURIComponent(parsed.password) }),
    ...(parsed.protocol === 'rediss:' && { tls: { servername: parsed.hostname } }),
  };
}
