import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { clientConnections, commandCalls, nodeOfKey } from './fleet-redis.js';
import { callDeltas, formatShards, perEvent, shardFigures, type ShardFigures, type ShardSample, type ShardWindows } from './fleet-shards.js';

const sample = (shard: string, usedMemory: number, calls: Record<string, number>, clients: number, replicaClients = 0, cpuSeconds = 0): ShardSample => ({
  shard,
  usedMemory,
  cpuSeconds,
  calls,
  clients,
  replicaClients,
});

// Two shards, four nodes (three homed on a, one on b), two workers, 10 s and 20 s windows.
const windows: ShardWindows = {
  empty: [sample('a', 1_000_000, { info: 5 }, 1, 1), sample('b', 2_000_000, {}, 1, 1)],
  idle: [
    [sample('a', 1_300_000, { info: 10, set: 100, evalsha: 50 }, 13, 5), sample('b', 2_100_000, { zadd: 10 }, 9, 5)],
    [sample('a', 1_300_500, { info: 30, 'client|list': 4, set: 130, evalsha: 70, 'cluster|slots': 10, replconf: 40 }, 13, 5), sample('b', 2_100_000, { zadd: 14, get: 2 }, 9, 5)],
  ],
  idleWithWorkers: [
    [sample('a', 1_400_000, { set: 200 }, 19, 9), sample('b', 2_200_000, { zadd: 20 }, 13, 5)],
    [sample('a', 1_400_000, { set: 300, bzpopmin: 20 }, 19, 9), sample('b', 2_200_000, { zadd: 40 }, 13, 5)],
  ],
  seconds: [10, 20],
  keys: [
    { shard: 'a', nodes: ['n1', 'n2', 'n3'], nodeKeyBytes: 3000, sharedKeys: [] },
    { shard: 'b', nodes: ['n4'], nodeKeyBytes: 1200, sharedKeys: ['weir:fleet', 'weir:queues'] },
  ],
  nodes: 4,
  workers: 2,
};

test('callDeltas counts the calls of the window, less the probe\'s INFO and CLIENT LIST and replication', () => {
  const [before, after] = [windows.idle[0][0]!, windows.idle[1][0]!];
  assert.equal(callDeltas(before, after), { set: 30, evalsha: 20, 'cluster|slots': 10 });
});

test('shardFigures gives commands per homed node, memory, key bytes and connections per shard, then the total', () => {
  const [a, b, all] = shardFigures(windows);
  assert.equal(a, {
    shard: 'a',
    nodes: 3,
    commandsPerSecond: 6,
    commandsPerHomedNode: 2,
    commandsPerSecondWithWorkers: 6,
    topCommands: [
      { name: 'set', perSecond: 3 },
      { name: 'evalsha', perSecond: 2 },
      { name: 'cluster|slots', perSecond: 1 },
    ],
    usedMemoryPerHomedNode: 100_000,
    keyBytesPerHomedNode: 1000,
    connectionsPerNode: 3,
    replicaConnectionsPerNode: 1,
    connectionsPerWorker: 3,
    replicaConnectionsPerWorker: 2,
  });
  const fields = (f: ShardFigures): unknown[] => [
    f.shard,
    f.nodes,
    f.commandsPerSecond,
    f.commandsPerHomedNode,
    f.commandsPerSecondWithWorkers,
    f.usedMemoryPerHomedNode,
    f.keyBytesPerHomedNode,
    f.connectionsPerNode,
    f.replicaConnectionsPerNode,
    f.connectionsPerWorker,
    f.replicaConnectionsPerWorker,
  ];
  assert.equal(fields(b!), ['b', 1, 0.6, 0.6, 1, 100_000, 1200, 2, 1, 2, 0]);
  assert.equal(fields(all!), ['all', 4, 6.6, 1.65, 7, 100_000, 1050, 5, 2, 5, 2]);
  assert.equal(all!.topCommands, a!.topCommands);
});

test('a shard with no node homed has no per-node figure, and the table shows it as -', () => {
  const none = shardFigures({ ...windows, keys: [{ ...windows.keys[0]!, nodes: [] }, windows.keys[1]!] })[0]!;
  assert.ok(Number.isNaN(none.commandsPerHomedNode));
  assert.ok(Number.isNaN(none.keyBytesPerHomedNode));
  const row = formatShards([none]).split('\n')[1]!.split(/\s{2,}/);
  assert.equal(row.slice(0, 4), ['a', '0', '6.00', '-']);
});

test('formatShards prints one aligned row per shard under a header, then each shard\'s busiest commands', () => {
  const text = formatShards(shardFigures(windows));
  assert.is(
    text,
    [
      'SHARD  NODES  CMD/S  CMD/S/NODE  CMD/S +WORKERS  USED_MEMORY/NODE  KEYS/NODE  CONNS/NODE  REPLICA CONNS/NODE  CONNS/WORKER  REPLICA CONNS/WORKER',
      'a          3   6.00        2.00            6.00          97.7 KiB    1,000 B         3.0                 1.0           3.0                   2.0',
      'b          1   0.60        0.60            1.00          97.7 KiB    1,200 B         2.0                 1.0           2.0                   0.0',
      'all        4   6.60        1.65            7.00          97.7 KiB    1,050 B         5.0                 2.0           5.0                   2.0',
      'busiest commands idle, no worker running:',
      '  a: set 3.00/s, evalsha 2.00/s, cluster|slots 1.00/s',
      '  b: zadd 0.40/s, get 0.20/s',
      '  all: set 3.00/s, evalsha 2.00/s, cluster|slots 1.00/s',
    ].join('\n'),
  );
});

test('perEvent divides the masters\' commands and CPU over a load by the events it delivered', () => {
  const before = [sample('a', 0, { evalsha: 100, info: 3 }, 0, 0, 10), sample('b', 0, { set: 5 }, 0, 0, 20)];
  const after = [sample('a', 0, { evalsha: 400, info: 9, hset: 100 }, 0, 0, 10.5), sample('b', 0, { set: 105 }, 0, 0, 20.25)];
  assert.equal(perEvent(before, after, 50), { commands: 10, cpuMs: 15 });
  assert.ok(Number.isNaN(perEvent(before, after, 0).commands));
});

test('commandCalls reads every command of INFO commandstats, subcommands included', () => {
  const info = '# Commandstats\r\ncmdstat_set:calls=12,usec=30,usec_per_call=2.50\r\ncmdstat_cluster|slots:calls=3,usec=9,usec_per_call=3.00\r\n';
  assert.equal(commandCalls(info), { set: 12, 'cluster|slots': 3 });
});

test('clientConnections counts CLIENT LIST lines, less the replication links', () => {
  const list = [
    'id=3 addr=127.0.0.1:50000 laddr=127.0.0.1:7000 fd=8 name= age=9 flags=N db=0 cmd=evalsha',
    'id=4 addr=127.0.0.1:50001 laddr=127.0.0.1:7000 fd=9 name=bull:aG9vaw== age=9 flags=b db=0 cmd=bzpopmin',
    'id=5 addr=127.0.0.1:50002 laddr=127.0.0.1:7000 fd=10 name= age=9 flags=S db=0 cmd=replconf',
    'id=6 addr=127.0.0.1:7001 laddr=127.0.0.1:50003 fd=11 name= age=9 flags=M db=0 cmd=ping',
    '',
  ].join('\n');
  assert.is(clientConnections(list), 2);
});

test('nodeOfKey takes the node id from the hash tag, URL-decoded, and none from a shared index', () => {
  assert.is(nodeOfKey('weir:{fleet-1}:sink:hook:state'), 'fleet-1');
  assert.is(nodeOfKey('weir:{edge%3Afra}:claim'), 'edge:fra');
  assert.is(nodeOfKey('weir:fleet'), null);
  assert.is(nodeOfKey('weir:queues'), null);
});

test.run();
