import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { findBinary } from './find-binary.js';
import { startRedisServer, type RedisServer } from './redis-server.js';
import { waitFor } from './wait-for.js';

const run = promisify(execFile);

/** How long a master may not answer before its replica takes over (ms): short, so a spec's failover is quick. */
const NODE_TIMEOUT_MS = 2000;

export interface RedisCluster {
  /** The servers: the masters and a replica of each, as `redis-cli --cluster create` paired them. */
  servers: RedisServer[];
  /** The seed URLs of every node, for `redis.cluster`. */
  seeds: string[];
  /** The server that serves `key`'s slot now. */
  masterOf(key: string): Promise<RedisServer>;
  /** Waits until a server other than `gone` serves `key`'s slot and the cluster says `cluster_state:ok`. */
  failedOver(key: string, gone: RedisServer): Promise<RedisServer>;
  /** Sets ACL user `user` to `rules` (after a reset) on every node, as an operator would: ACLs are per node. */
  setUser(user: string, rules: readonly string[]): Promise<void>;
  /** Stops every server and removes their dirs. */
  close(): Promise<void>;
}

/**
 * A real Redis Cluster of `masters` masters (3, the least Redis accepts) and a replica
 * of each on loopback, each a redis-server with AOF in its own temp dir
 * (redis-server.ts), joined by `redis-cli --cluster create`. Resolves once every node
 * says `cluster_state:ok`. Whatever started is stopped if the setup fails.
 */
export async function startRedisCluster(masters = 3): Promise<RedisCluster> {
  const cli = findBinary('redis-cli');
  if (cli === null) throw new Error('redis-cli is not installed (apt-get install redis-tools)');
  const args = ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', String(NODE_TIMEOUT_MS)];
  const servers: RedisServer[] = [];
  const close = async (): Promise<void> => {
    await Promise.all(servers.map((s) => s.close()));
  };
  try {
    for (let i = 0; i < 2 * masters; i++) servers.push(await startClusterNode(args));
    await run(cli, ['--cluster', 'create', ...servers.map((s) => `127.0.0.1:${s.port}`), '--cluster-replicas', '1', '--cluster-yes']);
    await waitFor(async () => (await Promise.all(servers.map((s) => clusterOk(s.port)))).every(Boolean), 30_000, 'cluster_state:ok on every node');
    // A replica takes over only once it is one: `create` leaves them masters for a while.
    await waitFor(async () => (await Promise.all(servers.map((s) => replicaInSync(s.port)))).filter(Boolean).length === masters, 30_000, `${masters} replicas in sync`);
  } catch (err) {
    await close();
    throw err;
  }
  const byPort = (port: number): RedisServer => servers.find((s) => s.port === port)!;
  const masterOf = async (key: string, among = servers): Promise<RedisServer> => {
    for (const server of among) {
      const port = await slotMaster(server.port, key).catch(() => null);
      if (port !== null) return byPort(port);
    }
    throw new Error('no node of the cluster answers CLUSTER SLOTS');
  };
  return {
    servers,
    seeds: servers.map((s) => s.url),
    masterOf: (key) => masterOf(key),
    failedOver: (key, gone) => {
      const alive = servers.filter((s) => s !== gone);
      return waitFor(
        async () => {
          const master = await masterOf(key, alive).catch(() => null);
          return master !== null && master !== gone && (await clusterOk(master.port)) ? master : null;
        },
        60_000,
        `a replica promoted in place of 127.0.0.1:${gone.port}`,
        200,
      );
    },
    setUser: async (user, rules) => {
      for (const server of servers) {
        const client = new Redis(server.port, '127.0.0.1', { maxRetriesPerRequest: 1 });
        try {
          await client.call('ACL', 'SETUSER', user, 'reset', ...rules);
        } finally {
          client.disconnect();
        }
      }
    },
    close,
  };
}

/**
 * A cluster node also listens on its port + 10000 (the cluster bus), which the free
 * port it was given does not promise: a node that could not bind it exits at start,
 * and another port is tried (a few times).
 */
async function startClusterNode(args: readonly string[]): Promise<RedisServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startRedisServer(args);
    } catch (err) {
      if (attempt === 5) throw err;
    }
  }
}

async function ask<T>(port: number, command: (r: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await command(redis);
  } finally {
    redis.disconnect();
  }
}

async function clusterOk(port: number): Promise<boolean> {
  return ask(port, async (r) => String(await r.cluster('INFO')).includes('cluster_state:ok')).catch(() => false);
}

/** Whether the server on `port` is a replica whose link to its master is up. */
async function replicaInSync(port: number): Promise<boolean> {
  const info = await ask(port, (r) => r.info('replication')).catch(() => '');
  return info.includes('role:slave') && info.includes('master_link_status:up');
}

/** The port of the master that serves `key`'s slot, as the node on `port` sees it. */
async function slotMaster(port: number, key: string): Promise<number> {
  return ask(port, async (r) => {
    const slot = Number(await r.cluster('KEYSLOT', key));
    const range = (await r.cluster('SLOTS')).find(([from, to]) => slot >= from && slot <= to);
    if (!range?.[2]) throw new Error(`slot ${slot} is served by no node`);
    return range[2][1];
  });
}
