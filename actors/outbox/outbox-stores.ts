import type { WeirConfig } from '../config/schema.js';
import type { Outbox } from '../contracts/outbox.js';
import type { BullmqOutboxStore } from './bullmq-outbox-store.js';
import { LmdbOutboxStore } from './lmdb-outbox-store.js';
import { within } from '../engine/within.js';
import { LateOutbox } from './late-outbox.js';
import { SpillOutbox } from './spill-outbox.js';
import { NodeIdInUseError } from './redis-node-claim.js';

/** How long a sink's opening waits for Redis before it takes the embedded store alone. */
const REDIS_OPEN_WAIT_MS = 3000;

export interface OutboxStores {
  /** The kind sinks are kept in: `redis` when Redis was reachable at start, else `embedded`. */
  readonly kind: 'redis' | 'embedded';
  open(sink: string): Promise<Outbox>;
  close(): Promise<void>;
}

export interface OutboxStoreEvents {
  onRedisError: (err: Error) => void;
  unreachable: (message: string) => void;
  /** Redis lost a sink's outbox (redis-loss-watch.ts). */
  lost: (message: string) => void;
  /** Another node took this node's id on Redis while it ran (redis-node-claim.ts). */
  claimLost: (message: string) => void;
  /** The engine run's first bus sequence. */
  runFirstSequence: number;
}

/**
 * Opens the node's outbox stores: the embedded one always (it is the whole outbox
 * without Redis, and the spill store beside Redis), BullMQ when `redis` is configured.
 * BullMQ is loaded only then, so a node without Redis does not pay for it. A node
 * whose Redis is down at start still proxies: its sinks run on the embedded store for
 * this run (nothing is lost; they move back to Redis at the next start) and
 * `unreachable` says so. A node id another running node holds on that Redis is no
 * outage: the stores do not open (NodeIdInUseError), so the node's start is refused,
 * and a sink config.apply adds keeps retrying its start, rather than sharing queues.
 */
export async function openOutboxStores(config: WeirConfig, { onRedisError, unreachable, lost, claimLost, runFirstSequence }: OutboxStoreEvents): Promise<OutboxStores> {
  const embedded = new LmdbOutboxStore({ stateDir: config.node.state_dir, limits: config.outbox });
  let redis: BullmqOutboxStore | null = null;
  if (config.redis) {
    const { BullmqOutboxStore } = await import('./bullmq-outbox-store.js');
    redis = await BullmqOutboxStore.connect({
      url: config.redis.url.reveal(),
      nodeId: config.node.id,
      limits: config.outbox,
      onError: onRedisError,
      stateDir: config.node.state_dir,
      runFirstSequence,
      onLost: lost,
      onClaimLost: claimLost,
    }).catch((err: unknown) => {
      if (err instanceof NodeIdInUseError) throw err;
      unreachable(`Redis is unreachable at start (${err instanceof Error ? err.message : 'error'}); sinks use the embedded outbox until the next start`);
      return null;
    });
  }
  return {
    kind: redis ? 'redis' : 'embedded',
    async open(sink) {
      const spill = await embedded.open(sink);
      if (!redis) return spill;
      // A sink added or replaced (config.apply) while Redis is down or hung would wait for
      // Redis, and the apply with it: after a while it runs on the embedded store instead,
      // and on Redis again once the open succeeds (LateOutbox).
      const opening = redis.open(sink);
      const primary = await within(
        opening.catch(() => null),
        REDIS_OPEN_WAIT_MS,
      );
      if (primary) return new SpillOutbox(primary, spill);
      unreachable(`Redis did not answer when sink "${sink}" opened; it uses the embedded outbox until Redis answers`);
      return new SpillOutbox(new LateOutbox(sink, () => redis.open(sink), opening), spill);
    },
    async close() {
      await redis?.close();
      await embedded.close();
    },
  };
}
