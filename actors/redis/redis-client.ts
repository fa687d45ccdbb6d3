import fs from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { redisLocation } from '../errors/redis-unreachable.js';
import { watchClusterReadiness } from './cluster-readiness.js';
import { watchRefusals } from './redis-refusal.js';

/** A connection to the fleet's Redis: a standalone server, or a Redis Cluster. */
export type RedisClient = Redis | Cluster;

/** The PEM files (absolute paths) and server name of a TLS connection to Redis (config `redis.tls`). */
export interface RedisTlsFiles {
  readonly ca?: string | undefined;
  readonly cert?: string | undefined;
  readonly key?: string | undefined;
  readonly servername?: string | undefined;
}

/** How weir signs in beside the URL's password: an ACL user name, and the TLS files of a rediss:// URL. */
export interface RedisAccess {
  readonly username?: string | undefined;
  readonly tls?: RedisTlsFiles | undefined;
}

/**
 * Where the fleet's Redis is: a standalone server's URL, or the seed URLs of a Redis
 * Cluster (config `redis.url` or `redis.cluster`), and how to sign in there.
 */
export type RedisAddress = string | (({ readonly url: string } | { readonly cluster: readonly string[] }) & RedisAccess);

/** A standalone URL alone stands for an address with no more to its sign-in. */
const placed = (address: RedisAddress) => (typeof address === 'string' ? { url: address } : address);

/** What a connection is for; the options of each kind hold for both shapes of Redis. */
export type RedisConnectOptions = Pick<RedisOptions, 'enableOfflineQueue' | 'maxRetriesPerRequest' | 'commandTimeout' | 'lazyConnect' | 'retryStrategy'>;

/**
 * The one place weir connects to Redis. A cluster is reached through ioredis's Cluster
 * client from its seed URLs: it learns the slots, follows MOVED and ASK, and after a
 * failover finds the promoted replica by itself. The credentials and TLS (rediss://)
 * of the first seed apply to every node, which is how managed clusters are served.
 */
export function connectRedis(given: RedisAddress, options: RedisConnectOptions = {}): RedisClient {
  const address = placed(given);
  const client = 'url' in address ? new Redis({ ...serverOptions(address.url, address), ...options }) : clusterOf(address, options);
  watchRefusals(client, firstUrl(address), redisPlace(address));
  return client;
}

/**
 * How long a seed asked why a cluster client is not ready (cluster-readiness.ts) may
 * take to connect, and then to answer (ms).
 */
const PROBE_WAIT_MS = 3000;

function clusterOf(address: { readonly cluster: readonly string[] } & RedisAccess, options: RedisConnectOptions): Cluster {
  const { enableOfflineQueue, lazyConnect, retryStrategy, ...perNode } = options;
  const clusterOptions: ClusterOptions = {
    redisOptions: { ...signInOptions(address.cluster[0]!, address), ...perNode },
    ...(enableOfflineQueue !== undefined && { enableOfflineQueue }),
    ...(lazyConnect !== undefined && { lazyConnect }),
    ...(retryStrategy !== undefined && { clusterRetryStrategy: retryStrategy }),
  };
  const cluster = new Cluster(address.cluster.map(seedOf), clusterOptions);
  const probeOptions: RedisOptions = { lazyConnect: true, enableReadyCheck: false, retryStrategy: () => null, maxRetriesPerRequest: 0, connectTimeout: PROBE_WAIT_MS, commandTimeout: PROBE_WAIT_MS };
  watchClusterReadiness(cluster, redisPlace(address), () => address.cluster.map((seed) => new Redis({ ...serverOptions(seed, address), ...probeOptions })));
  return cluster;
}

/**
 * The connection of a BullMQ Worker: for a standalone Redis its options, so BullMQ makes
 * its connections with its own reconnect policy; for a cluster a Cluster client, which
 * BullMQ needs (it duplicates it for its blocking wait), for the caller to disconnect.
 */
export function workerConnection(given: RedisAddress): Omit<RedisOptions, 'retryStrategy'> | Cluster {
  const address = placed(given);
  return 'url' in address ? { ...serverOptions(address.url, address), maxRetriesPerRequest: null } : (connectRedis(address, { maxRetriesPerRequest: null }) as Cluster);
}

/** The URL that names the address in an error: the URL, or a cluster's first seed (redisLocation strips its credentials). */
export function firstUrl(given: RedisAddress): string {
  const address = placed(given);
  return 'url' in address ? address.url : address.cluster[0]!;
}

/** The address as errors name it, without credentials: the URL, or a cluster's seeds. */
function redisPlace(given: RedisAddress): string {
  const address = placed(given);
  return 'url' in address ? redisLocation(address.url) : address.cluster.map(redisLocation).join(', ');
}

/** The config's `redis` as an address: `url`, or `cluster`'s seeds, with its user name and TLS files. */
export function redisAddressOf(redis: {
  url?: { reveal(): string } | undefined;
  cluster?: readonly { reveal(): string }[] | undefined;
  username?: string | undefined;
  tls?: RedisTlsFiles | undefined;
}): RedisAddress {
  const access = { username: redis.username, tls: redis.tls };
  return redis.cluster ? { cluster: redis.cluster.map((s) => s.reveal()), ...access } : { url: redis.url!.reveal(), ...access };
}

function seedOf(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(parsed.port) || 6379 };
}

/** One server's options from its URL (host, port, db) and the sign-in. */
function serverOptions(url: string, access: RedisAccess): RedisOptions {
  const db = Number(new URL(url).pathname.slice(1));
  return { ...seedOf(url), ...(db > 0 && { db }), ...signInOptions(url, access) };
}

/**
 * The user name, password and TLS of a connection. ioredis takes a URL's empty user
 * name (`redis://:pw@host`) over a `username` option, so weir reads the URL itself and
 * hands ioredis options only. The PEM files are read when a client is made (the
 * config check has found them readable).
 */
function signInOptions(url: string, access: RedisAccess): Pick<RedisOptions, 'username' | 'password' | 'tls'> {
  const parsed = new URL(url);
  const username = access.username ?? decodeURIComponent(parsed.username);
  return {
    ...(username !== '' && { username }),
    ...(parsed.password !== '' && { password: decodeURIComponent(parsed.password) }),
    ...(parsed.protocol === 'rediss:' && { tls: tlsOptions(access.tls ?? {}) }),
  };
}

function tlsOptions(files: RedisTlsFiles): ConnectionOptions {
  const read = (file: string | undefined): Buffer | undefined => (file === undefined ? undefined : fs.readFileSync(file));
  return {
    ...(files.ca !== undefined && { ca: read(files.ca) }),
    ...(files.cert !== undefined && { cert: read(files.cert) }),
    ...(files.key !== undefined && { key: read(files.key) }),
    ...(files.servername !== undefined && { servername: files.servername }),
  };
}
