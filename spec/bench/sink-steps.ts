import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import type { RedisServer } from '../support/redis-server.js';
import { record, type Comparison } from './compare.js';
import type { SinkNode } from './sink-messages.js';
import type { AckReceiver } from './sink-receiver.js';
import { runDelivery, runHotPath, runRawBullmq } from './sink-runner.js';
import type { SinkSettings } from './sinks.js';

/** What every sink bench step shares: where it runs, and the comparisons it adds to. */
export interface SinkContext {
  readonly tmp: string;
  readonly receiver: AckReceiver;
  readonly redis: RedisServer | null;
  readonly s: SinkSettings;
  readonly out: SinkComparisons;
}

export type SinkComparisons = Record<'single' | 'batched' | 'raw' | 'publish' | 'enqueue' | 'added', Comparison>;
export type Store = SinkNode['store'];

export const RAW = 'raw BullMQ';
const CONCURRENCY = 4;

export function sinkComparisons(): SinkComparisons {
  const delivery = (batch: number): Comparison => ({
    label: batch === 1 ? `sink delivery, one event per request (batch_size 1), concurrency ${CONCURRENCY}` : `sink delivery, default config (batch_size ${batch}, concurrency ${CONCURRENCY}), a burst`,
    unit: 'events/s',
    digits: 0,
    baseline: RAW,
    samples: { embedded: [], redis: [], [RAW]: [] },
  });
  const us = { unit: 'µs/event', digits: 2 };
  return {
    single: delivery(1),
    batched: delivery(100),
    raw: { label: 'raw BullMQ addBulk alone, batches of 100 (one event per job)', unit: 'jobs/s', digits: 0, baseline: null, samples: { [RAW]: [] } },
    publish: { label: 'hot path: inside bus.publish', ...us, baseline: 'sink off', samples: { 'sink off': [], embedded: [], redis: [] } },
    enqueue: { label: 'hot path: dispatcher enqueue', ...us, baseline: null, samples: { embedded: [], redis: [] } },
    added: { label: 'hot path: added by a sink (publish on − off + enqueue)', ...us, baseline: null, samples: { embedded: [], redis: [] } },
  };
}

/** Empties the shared Redis, so no run starts beside what an earlier one left (a hot-path backlog, completed counters). */
export async function flushRedis(redis: RedisServer): Promise<void> {
  const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  try {
    await client.flushall();
  } finally {
    client.disconnect();
  }
}

/** A fresh state dir and a node id of its own per run. */
function node(c: SinkContext, store: Store, batchSize: number, name: string): SinkNode {
  return {
    store,
    redisUrl: store === 'redis' ? (c.redis?.url ?? null) : null,
    url: c.receiver.url,
    stateDir: fs.mkdtempSync(path.join(c.tmp, `${name}-`)),
    nodeId: name,
    batchSize,
    concurrency: CONCURRENCY,
  };
}

export async function hot(c: SinkContext, store: Store, round: number): Promise<string> {
  const n = node(c, store, 1, `hot-${store}-${round}`);
  const h = await runHotPath({ kind: 'hot', node: n, events: c.s.hotEvents, chunk: 100 }, c.s.timeoutMs).finally(() =>
    fs.rmSync(n.stateDir, { recursive: true, force: true }),
  );
  record(c.out.publish, 'sink off', h.publishOffUs);
  record(c.out.publish, store, h.publishOnUs);
  record(c.out.enqueue, store, h.enqueueUs);
  record(c.out.added, store, h.publishOnUs - h.publishOffUs + h.enqueueUs);
  return `${store} hot path: publish ${h.publishOffUs.toFixed(2)} → ${h.publishOnUs.toFixed(2)} µs, enqueue ${h.enqueueUs.toFixed(2)} µs`;
}

export async function deliver(c: SinkContext, store: Store, batchSize: number, round: number): Promise<string> {
  const n = node(c, store, batchSize, `deliver-${store}-${batchSize}-${round}`);
  const events = batchSize === 1 ? c.s.singleEvents : c.s.batchedEvents;
  const perSecond = await runDelivery({ kind: 'deliver', node: n, events, chunk: 100 }, c.receiver, c.s.timeoutMs).finally(() =>
    fs.rmSync(n.stateDir, { recursive: true, force: true }),
  );
  record(batchSize === 1 ? c.out.single : c.out.batched, store, perSecond);
  return `${store} batch ${batchSize}: ${perSecond.toFixed(0)} events/s`;
}

export async function raw(c: SinkContext, redis: RedisServer, round: number): Promise<string> {
  const jobs = c.s.batchedEvents;
  const r = await runRawBullmq({ kind: 'bullmq', redisUrl: redis.url, queue: `raw-${round}`, jobs, batch: 100, concurrency: 50, timeoutMs: c.s.timeoutMs });
  record(c.out.single, RAW, r.completed / r.seconds);
  record(c.out.batched, RAW, r.completed / r.seconds);
  record(c.out.raw, RAW, r.completed / r.addSeconds);
  return `${RAW}: ${(r.completed / r.seconds).toFixed(0)} jobs/s (addBulk alone ${(r.completed / r.addSeconds).toFixed(0)} jobs/s)`;
}
