import fs from 'node:fs';
import { Redis } from 'ioredis';
import type { EntrySettlement, LeasedOutbox, OutboxEntry } from '../../../actors/contracts/outbox.js';
import type { StopDeadline } from '../../../actors/base/stop-deadline.js';
import type { BullmqOutbox } from '../../../actors/outbox/bullmq-outbox.js';
import { BullmqOutboxStore } from '../../../actors/outbox/bullmq-outbox-store.js';
import { LmdbOutboxStore } from '../../../actors/outbox/lmdb-outbox-store.js';
import { SpillOutbox } from '../../../actors/outbox/spill-outbox.js';
import type { RedisServer } from '../../support/redis-server.js';
import { tempDir } from '../../support/temp-dir.js';
import { withClosing } from '../../support/with-closing.js';
import { sinkKeys } from '../../../actors/outbox/bullmq-keys.js';
import { bullmqDrain } from './bullmq-drain.js';
import { ROOMY } from './outbox-contract.js';

/** The sink `billing` of a fresh node: its Redis outbox and the embedded store beside it. */
export interface SpillSink {
  nodeId: string;
  redis: BullmqOutboxStore;
  primary: BullmqOutbox;
  spill: LeasedOutbox;
  outbox: SpillOutbox;
  admin: Redis;
  /** Delivers the Redis queue with a BullMQ worker (bullmqDrain). */
  drainRedis(settle?: (entry: OutboxEntry) => EntrySettlement): Promise<OutboxEntry[]>;
  /** How many appends reached the Redis outbox. */
  redisAppends(): number;
  /** Redis out of memory (maxmemory 1 byte under noeviction), or not. */
  full(on: boolean): Promise<void>;
  close(): Promise<void>;
}

export interface SpillSinkOptions {
  probeMs?: number;
  /** The node's stop deadline the SpillOutbox is built with. */
  deadline?: StopDeadline;
  /** Runs on the sink's state dir before it opens: a previous run of the node. */
  embeddedFirst?: (store: LmdbOutboxStore) => Promise<void>;
}

let nodes = 0;

export async function openSpillSink(server: RedisServer, opts: SpillSinkOptions = {}): Promise<SpillSink> {
  const nodeId = `spill-node-${++nodes}`;
  const stateDir = tempDir('weir-spill-');
  await opts.embeddedFirst?.(new LmdbOutboxStore({ stateDir, limits: ROOMY }));
  const redis = await BullmqOutboxStore.connect({ url: server.url, nodeId, limits: ROOMY });
  const embedded = new LmdbOutboxStore({ stateDir, limits: ROOMY });
  const primary = await redis.open('billing');
  let appends = 0;
  const append = primary.append.bind(primary);
  primary.append = (e) => {
    appends++;
    return append(e);
  };
  const spill = await embedded.open('billing');
  const outbox = new SpillOutbox(primary, spill, { ...(opts.probeMs && { probeMs: opts.probeMs }), ...(opts.deadline && { deadline: opts.deadline }) });
  const admin = new Redis(server.url);
  const full = async (on: boolean): Promise<void> => void (await admin.config('SET', 'maxmemory', on ? '1' : '0'));
  return {
    nodeId,
    redis,
    primary,
    spill,
    outbox,
    admin,
    drainRedis: (settle = () => ({ kind: 'ack' })) => bullmqDrain(server.url, sinkKeys(nodeId, 'billing'), settle),
    redisAppends: () => appends,
    full,
    async close() {
      server.thaw();
      await full(false);
      admin.disconnect();
      await outbox.close();
      await redis.close();
      await embedded.close();
      fs.rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** A test on a fresh spill sink of `server`, closed after it. */
export const withSpillSink =
  (server: Promise<RedisServer>, opts?: SpillSinkOptions) =>
  (body: (sink: SpillSink) => Promise<void>): (() => Promise<void>) =>
    withClosing(async () => openSpillSink(await server, opts), body);

export const ids = (list: { id: string }[]): string[] => list.map((e) => e.id);
