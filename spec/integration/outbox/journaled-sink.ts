import fs from 'node:fs';
import { Redis } from 'ioredis';
import type { EntrySettlement, LeasedOutbox, OutboxEntry } from '../../../actors/contracts/outbox.js';
import { StopDeadline } from '../../../actors/base/stop-deadline.js';
import type { BullmqOutbox } from '../../../actors/outbox/bullmq-outbox.js';
import { BullmqOutboxStore } from '../../../actors/outbox/bullmq-outbox-store.js';
import { sinkKeys } from '../../../actors/outbox/bullmq-keys.js';
import { JournaledOutbox } from '../../../actors/outbox/journaled-outbox.js';
import { OutboxUnavailable } from '../../../actors/outbox/outbox-errors.js';
import { JournalOutboxStore } from '../../../actors/outbox/journal-outbox-store.js';
import { RedisHealth } from '../../../actors/outbox/redis-health.js';
import type { RedisServer } from '../../support/redis-server.js';
import { tempDir } from '../../support/temp-dir.js';
import { withClosing } from '../../support/with-closing.js';
import { bullmqDrain } from './bullmq-drain.js';
import { ROOMY } from '../../unit/outbox/outbox-contract.js';

/** The sink `billing` of a node on Redis: its queue, its outage journal, and the outbox over both. */
export interface JournaledSink {
  nodeId: string;
  stateDir: string;
  redis: BullmqOutboxStore;
  primary: BullmqOutbox;
  journal: LeasedOutbox;
  outbox: JournaledOutbox;
  admin: Redis;
  /** What RedisHealth told, in order. */
  told: string[];
  /** Delivers the Redis queue with a BullMQ worker (bullmqDrain). */
  drainRedis(settle?: (entry: OutboxEntry) => EntrySettlement): Promise<OutboxEntry[]>;
  /** Redis out of memory (maxmemory 1 byte under noeviction), or not. */
  full(on: boolean): Promise<void>;
  /** Closes the outbox and stores, keeping the state dir (a stop of the node). */
  stop(): Promise<void>;
  close(): Promise<void>;
}

let nodes = 0;

/**
 * Opens the sink; `stateDir` and `nodeId` of an earlier one make it that node's next
 * start. `refuseAck`: the journal refuses every deletion (a disk that refuses it).
 */
export async function openJournaledSink(server: RedisServer, again?: { stateDir: string; nodeId: string }, refuseAck = false): Promise<JournaledSink> {
  const nodeId = again?.nodeId ?? `journal-node-${++nodes}`;
  const stateDir = again?.stateDir ?? tempDir('weir-journal-');
  const redis = await BullmqOutboxStore.connect({ url: server.url, nodeId, limits: ROOMY, stateDir });
  const embedded = new JournalOutboxStore({ stateDir, limits: ROOMY });
  const primary = await redis.open('billing');
  const opened = await embedded.open('billing');
  const journal = refuseAck ? refusingAck(opened) : opened;
  const told: string[] = [];
  const health = new RedisHealth({ lost: (m) => told.push(`lost: ${m}`), back: (m) => told.push(`back: ${m}`) });
  const outbox = new JournaledOutbox({ sink: 'billing', batchSize: 1, redis: primary, openRedis: () => Promise.resolve(primary), journal, deadline: new StopDeadline(), health });
  const admin = new Redis(server.url);
  const full = async (on: boolean): Promise<void> => void (await admin.config('SET', 'maxmemory', on ? '1' : '0'));
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    admin.disconnect();
    await outbox.close();
    await redis.close();
    await embedded.close();
  };
  return {
    nodeId,
    stateDir,
    redis,
    primary,
    journal,
    outbox,
    admin,
    told,
    drainRedis: (settle = () => ({ kind: 'ack' })) => bullmqDrain(server.url, sinkKeys(nodeId, 'billing'), settle),
    full,
    stop,
    async close() {
      server.thaw();
      await full(false).catch(() => undefined);
      await stop();
      fs.rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

function refusingAck(journal: LeasedOutbox): LeasedOutbox {
  const refuse = (): Promise<never> => Promise.reject(new OutboxUnavailable('the disk refuses the deletion'));
  return new Proxy(journal, {
    get: (target, key) => {
      if (key === 'ack') return refuse;
      const value: unknown = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A test on a fresh journaled sink of `server`, closed after it. */
export const withJournaledSink =
  (server: Promise<RedisServer>) =>
  (body: (sink: JournaledSink) => Promise<void>): (() => Promise<void>) =>
    withClosing(async () => openJournaledSink(await server), body);

export const ids = (list: { id: string }[]): string[] => list.map((e) => e.id);
