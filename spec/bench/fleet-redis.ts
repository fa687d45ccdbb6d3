import { Redis } from 'ioredis';
import type { FleetMember } from '../../actors/fleet/read-fleet.js';
import type { RedisAddress } from '../../actors/redis/redis-client.js';
import { startRedisCluster } from '../support/redis-cluster.js';
import { startRedisServer } from '../support/redis-server.js';
import { runWeir } from '../support/weir-bin.js';
import type { ShardKeys, ShardSample } from './fleet-shards.js';

/** `FLEET_REDIS`: one redis-server, or a Redis Cluster of masters and a replica of each. */
export type FleetRedisKind = 'standalone' | 'cluster';

/** One field of an INFO section, as a number. */
export function infoField(info: string, field: string): number {
  const line = info.split('\r\n').find((l) => l.startsWith(`${field}:`));
  if (line === undefined) throw new Error(`INFO has no ${field}`);
  return Number(line.slice(field.length + 1));
}

/** Calls per command in INFO commandstats (commands that scripts run included). */
export function commandCalls(info: string): Record<string, number> {
  return Object.fromEntries([...info.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)].map((m) => [m[1]!, Number(m[2])]));
}

/** The client connections in a CLIENT LIST answer, less the replication links (flags S and M). */
export function clientConnections(list: string): number {
  return list.split('\n').filter((l) => /flags=([A-Za-z]*)/.exec(l)?.[1]?.match(/[SM]/) === null).length;
}

/** The node id a key of weir's belongs to (the hash tag of `weir:{<node_id>}:…`), or null for a shared key. */
export function nodeOfKey(key: string): string | null {
  const tag = /^weir:\{([^}]*)\}:/.exec(key)?.[1];
  return tag === undefined ? null : decodeURIComponent(tag);
}

/** A shard: its master and its replicas, each a connection of the probe's. */
interface Shard {
  readonly name: string;
  readonly master: Redis;
  readonly replicas: readonly Redis[];
}

/** The simulation's Redis, and its view of it: what INFO, CLIENT LIST and MEMORY USAGE give per shard. */
export interface FleetRedis {
  readonly address: RedisAddress;
  /** In a few words, for the report. */
  readonly description: string;
  sample(): Promise<ShardSample[]>;
  keys(): Promise<ShardKeys[]>;
  close(): Promise<void>;
}

const connect = (url: string): Redis => {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  return redis;
};

/**
 * Starts the Redis of `kind` (AOF, `appendfsync always`), a cluster with `masters`
 * masters, and the probe's connections to each of its servers.
 */
export async function startFleetRedis(kind: FleetRedisKind, masters: number): Promise<FleetRedis> {
  if (kind === 'standalone') {
    const server = await startRedisServer();
    const shard = { name: `127.0.0.1:${server.port}`, master: connect(server.url), replicas: [] };
    return fleetRedis(server.url, 'one Redis', [shard], () => server.close());
  }
  const cluster = await startRedisCluster(masters);
  const servers = cluster.servers.map((s) => ({ port: s.port, redis: connect(s.url) }));
  // Who is whose replica, as `redis-cli --cluster create` paired them.
  const roles = await Promise.all(servers.map(async (s) => ({ ...s, info: await s.redis.info('replication') })));
  const shards = roles
    .filter((s) => s.info.includes('role:master'))
    .map((m) => ({
      name: `127.0.0.1:${m.port}`,
      master: m.redis,
      replicas: roles.filter((r) => r.info.includes('role:slave') && infoField(r.info, 'master_port') === m.port).map((r) => r.redis),
    }));
  return fleetRedis({ cluster: cluster.seeds }, `a Redis Cluster of ${shards.length} masters and ${servers.length - shards.length} replicas`, shards, () => cluster.close());
}

function fleetRedis(address: RedisAddress, description: string, shards: readonly Shard[], stop: () => Promise<void>): FleetRedis {
  const clients = async (redis: Redis): Promise<number> => clientConnections(String(await redis.client('LIST')));
  return {
    address,
    description,
    // commandstats first: the window's other reads are the probe's and are left out by name.
    sample: () =>
      Promise.all(
        shards.map(async (s): Promise<ShardSample> => {
          const calls = commandCalls(await s.master.info('commandstats'));
          const usedMemory = infoField(await s.master.info('memory'), 'used_memory');
          const cpu = await s.master.info('cpu');
          const cpuSeconds = infoField(cpu, 'used_cpu_user') + infoField(cpu, 'used_cpu_sys');
          const replicaClients = (await Promise.all(s.replicas.map(clients))).reduce((a, b) => a + b, 0);
          return { shard: s.name, usedMemory, cpuSeconds, calls, clients: await clients(s.master), replicaClients };
        }),
      ),
    keys: () => Promise.all(shards.map((s) => shardKeys(s))),
    close: async () => {
      for (const s of shards) for (const r of [s.master, ...s.replicas]) r.disconnect();
      await stop();
    },
  };
}

/** The weir keys on a master: SCAN (a master sees its own slots' keys), then MEMORY USAGE of each node key. */
async function shardKeys(shard: Shard): Promise<ShardKeys> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await shard.master.scan(cursor, 'MATCH', 'weir:*', 'COUNT', 1000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  const nodes = new Set<string>();
  let nodeKeyBytes = 0;
  for (const key of keys) {
    const node = nodeOfKey(key);
    if (node === null) continue;
    nodes.add(node);
    nodeKeyBytes += Number((await shard.master.memory('USAGE', key, 'SAMPLES', 0)) ?? 0);
  }
  return { shard: shard.name, nodes: [...nodes].sort(), nodeKeyBytes, sharedKeys: keys.filter((k) => nodeOfKey(k) === null).sort() };
}

/** `weir fleet --json -c FILE` (a config with the fleet's `redis`): the fleet as an operator's script sees it. */
export async function fleetJson(configPath: string): Promise<FleetMember[]> {
  const res = await runWeir(['fleet', '--json', '-c', configPath]);
  if (res.code !== 0) throw new Error(`weir fleet --json exited ${res.code}: ${res.stderr.trim()}`);
  return (JSON.parse(res.stdout) as { nodes: FleetMember[] }).nodes;
}

/** `weir fleet -c FILE`: the table an operator reads. */
export async function fleetTable(configPath: string): Promise<string> {
  const res = await runWeir(['fleet', '-c', configPath]);
  if (res.code !== 0) throw new Error(`weir fleet exited ${res.code}: ${res.stderr.trim()}`);
  return res.stdout.trimEnd();
}
