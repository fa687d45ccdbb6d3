import { columns, num } from './fleet-report.js';

/**
 * What the probe read from one shard's servers at one moment: its master's
 * `INFO memory` and `INFO commandstats`, and the client connections of `CLIENT LIST`
 * on the master and on its replicas (replication links left out).
 */
export interface ShardSample {
  /** The master, `host:port`. */
  readonly shard: string;
  readonly usedMemory: number;
  /** CPU time the master used so far, `used_cpu_user` + `used_cpu_sys` of `INFO cpu`, in seconds. */
  readonly cpuSeconds: number;
  /** Calls per command, commandstats' names (`set`, `evalsha`, `cluster|slots`). */
  readonly calls: Readonly<Record<string, number>>;
  readonly clients: number;
  readonly replicaClients: number;
}

/** The weir keys a shard's master holds, read by SCAN and `MEMORY USAGE` after the idle window. */
export interface ShardKeys {
  readonly shard: string;
  /** The node ids whose hash tag falls in this shard's slots: the nodes homed on it. */
  readonly nodes: readonly string[];
  /** `MEMORY USAGE` of the homed nodes' keys, summed. */
  readonly nodeKeyBytes: number;
  /** Keys of no node (the indexes `weir:fleet`, `weir:queues`). */
  readonly sharedKeys: readonly string[];
}

/** The samples of one run: before any node, at both ends of the two idle windows, and the keys. */
export interface ShardWindows {
  readonly empty: readonly ShardSample[];
  /** The nodes idle, no worker running. */
  readonly idle: readonly [readonly ShardSample[], readonly ShardSample[]];
  /** The nodes idle, the workers running. */
  readonly idleWithWorkers: readonly [readonly ShardSample[], readonly ShardSample[]];
  /** Seconds of each idle window, as measured. */
  readonly seconds: readonly [number, number];
  readonly keys: readonly ShardKeys[];
  /** The fleet's nodes and `weir deliver` workers. */
  readonly nodes: number;
  readonly workers: number;
}

/** One shard's figures, or the fleet's total over every shard (`shard: 'all'`). */
export interface ShardFigures {
  readonly shard: string;
  /** Nodes homed on the shard (their keys' slot is its). */
  readonly nodes: number;
  readonly commandsPerSecond: number;
  /** The shard's commands/s over the nodes homed on it; NaN with none homed. */
  readonly commandsPerHomedNode: number;
  readonly commandsPerSecondWithWorkers: number;
  /** The commands that took most of the idle window, busiest first. */
  readonly topCommands: readonly { readonly name: string; readonly perSecond: number }[];
  /** used_memory idle less before any node, over the nodes homed on the shard. */
  readonly usedMemoryPerHomedNode: number;
  /** MEMORY USAGE of a homed node's keys. */
  readonly keyBytesPerHomedNode: number;
  /** Client connections each node of the fleet holds to the shard: master, and its replicas. */
  readonly connectionsPerNode: number;
  readonly replicaConnectionsPerNode: number;
  /** Client connections each `weir deliver` worker holds to the shard: master, and its replicas. */
  readonly connectionsPerWorker: number;
  readonly replicaConnectionsPerWorker: number;
}

/** Commands that are the probe's own (its reads of the window) or replication's, not weir's. */
const NOT_WEIR = new Set(['info', 'client|list', 'replconf']);
const TOP = 3;

/** Calls per command from `before` to `after`, weir's alone. */
export function callDeltas(before: ShardSample, after: ShardSample): Record<string, number> {
  const deltas: Record<string, number> = {};
  for (const [name, calls] of Object.entries(after.calls)) {
    const delta = calls - (before.calls[name] ?? 0);
    if (!NOT_WEIR.has(name) && delta > 0) deltas[name] = delta;
  }
  return deltas;
}

const sum = (values: Iterable<number>): number => [...values].reduce((s, v) => s + v, 0);

/** `a / b`, NaN when `b` is 0: a shard with no node homed has no per-node figure. */
const per = (a: number, b: number): number => (b === 0 ? Number.NaN : a / b);

function sampleOf(samples: readonly ShardSample[], shard: string): ShardSample {
  const found = samples.find((s) => s.shard === shard);
  if (!found) throw new Error(`no sample of shard ${shard}`);
  return found;
}

/** What the masters did for a load, per event it delivered: weir's commands, and CPU in ms. */
export function perEvent(before: readonly ShardSample[], after: readonly ShardSample[], events: number): { commands: number; cpuMs: number } {
  const commands = sum(after.map((a) => sum(Object.values(callDeltas(sampleOf(before, a.shard), a)))));
  const cpuMs = sum(after.map((a) => a.cpuSeconds - sampleOf(before, a.shard).cpuSeconds)) * 1000;
  return { commands: per(commands, events), cpuMs: per(cpuMs, events) };
}

/** The figures of every shard in `keys` order, then the fleet's total as `all`. */
export function shardFigures(w: ShardWindows): ShardFigures[] {
  const [idleSeconds, workersSeconds] = w.seconds;
  const rows = w.keys.map((k) => {
    const at = (samples: readonly ShardSample[]): ShardSample => sampleOf(samples, k.shard);
    const deltas = callDeltas(at(w.idle[0]), at(w.idle[1]));
    const withWorkers = callDeltas(at(w.idleWithWorkers[0]), at(w.idleWithWorkers[1]));
    return {
      k,
      deltas,
      commands: sum(Object.values(deltas)),
      commandsWithWorkers: sum(Object.values(withWorkers)),
      memory: at(w.idle[0]).usedMemory - at(w.empty).usedMemory,
      clients: at(w.idle[0]).clients - at(w.empty).clients,
      replicaClients: at(w.idle[0]).replicaClients - at(w.empty).replicaClients,
      workerClients: at(w.idleWithWorkers[0]).clients - at(w.idle[0]).clients,
      workerReplicaClients: at(w.idleWithWorkers[0]).replicaClients - at(w.idle[0]).replicaClients,
    };
  });
  type Row = (typeof rows)[number];
  const figures = (shard: string, homed: number, r: Omit<Row, 'k'> & { keyBytes: number }): ShardFigures => ({
    shard,
    nodes: homed,
    commandsPerSecond: r.commands / idleSeconds,
    commandsPerHomedNode: per(r.commands / idleSeconds, homed),
    commandsPerSecondWithWorkers: r.commandsWithWorkers / workersSeconds,
    topCommands: Object.entries(r.deltas)
      .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
      .slice(0, TOP)
      .map(([name, calls]) => ({ name, perSecond: calls / idleSeconds })),
    usedMemoryPerHomedNode: per(r.memory, homed),
    keyBytesPerHomedNode: per(r.keyBytes, homed),
    connectionsPerNode: per(r.clients, w.nodes),
    replicaConnectionsPerNode: per(r.replicaClients, w.nodes),
    connectionsPerWorker: per(r.workerClients, w.workers),
    replicaConnectionsPerWorker: per(r.workerReplicaClients, w.workers),
  });
  const total = (field: 'commands' | 'commandsWithWorkers' | 'memory' | 'clients' | 'replicaClients' | 'workerClients' | 'workerReplicaClients'): number => sum(rows.map((r) => r[field]));
  const allDeltas: Record<string, number> = {};
  for (const r of rows) for (const [name, calls] of Object.entries(r.deltas)) allDeltas[name] = (allDeltas[name] ?? 0) + calls;
  return [
    ...rows.map((r) => figures(r.k.shard, r.k.nodes.length, { ...r, keyBytes: r.k.nodeKeyBytes })),
    figures('all', w.nodes, {
      deltas: allDeltas,
      commands: total('commands'),
      commandsWithWorkers: total('commandsWithWorkers'),
      memory: total('memory'),
      clients: total('clients'),
      replicaClients: total('replicaClients'),
      workerClients: total('workerClients'),
      workerReplicaClients: total('workerReplicaClients'),
      keyBytes: sum(w.keys.map((k) => k.nodeKeyBytes)),
    }),
  ];
}

/** The figures as a plain-text table, one row per shard and the total, then the busiest commands of each. */
export function formatShards(rows: readonly ShardFigures[]): string {
  const header = ['SHARD', 'NODES', 'CMD/S', 'CMD/S/NODE', 'CMD/S +WORKERS', 'USED_MEMORY/NODE', 'KEYS/NODE', 'CONNS/NODE', 'REPLICA CONNS/NODE', 'CONNS/WORKER', 'REPLICA CONNS/WORKER'];
  const cells = [
    header,
    ...rows.map((r) => [
      r.shard,
      num(r.nodes),
      num(r.commandsPerSecond, 2),
      num(r.commandsPerHomedNode, 2),
      num(r.commandsPerSecondWithWorkers, 2),
      `${num(r.usedMemoryPerHomedNode / 1024, 1)} KiB`,
      `${num(r.keyBytesPerHomedNode)} B`,
      num(r.connectionsPerNode, 1),
      num(r.replicaConnectionsPerNode, 1),
      num(r.connectionsPerWorker, 1),
      num(r.replicaConnectionsPerWorker, 1),
    ]),
  ];
  const table = columns(cells);
  const busiest = rows.map((r) => `${r.shard}: ${r.topCommands.map((c) => `${c.name} ${num(c.perSecond, 2)}/s`).join(', ') || 'none'}`);
  return `${table}\nbusiest commands idle, no worker running:\n${busiest.map((l) => `  ${l}`).join('\n')}`;
}
