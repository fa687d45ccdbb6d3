import { redisAddressOf } from '../redis/redis-client.js';
import type { WeirConfig } from '../config/schema.js';
import type { OutboxOpenOptions, SinkOutbox } from '../contracts/outbox.js';
import type { BullmqOutbox } from './bullmq-outbox.js';
import type { BullmqOutboxStore } from './bullmq-outbox-store.js';
import { JournalOutboxStore } from './journal-outbox-store.js';
import type { StopDeadline } from '../base/stop-deadline.js';
import { JournaledOutbox } from './journaled-outbox.js';
import { NodeIdInUseError } from './redis-node-claim.js';
import { RedisHealth } from './redis-health.js';
import { RedisRefusedError } from '../redis/redis-refusal.js';

/** How long a sink's opening waits for Redis before its appends go to the outage journal. */
const REDIS_OPEN_WAIT_MS = 3000;

export interface OutboxStores {
  open(sink: string, opts?: OutboxOpenOptions): Promise<SinkOutbox>;
  /** Whether the sinks reach Redis now (RedisHealth); null for the embedded kind. */
  redisUp(): boolean | null;
  close(): Promise<void>;
}

export interface OutboxStoreEvents {
  onRedisError: (err: Error) => void;
  unreachable: (message: string) => void;
  /** Redis answers again after `unreachable` (at start, or a failed append). */
  reachable: (message: string) => void;
  /** Redis lost a sink's outbox (redis-loss-watch.ts). */
  lost: (message: string) => void;
  /** Another node took this node's id on Redis while it ran (redis-node-claim.ts). */
  claimLost: (message: string) => void;
  /** The engine run's first bus sequence. */
  runFirstSequence: number;
  /** The node's stop deadline: no wait on Redis outlasts it (StopDeadline). */
  deadline: StopDeadline;
}

/**
 * Opens the node's outbox stores: the embedded one always (the whole outbox without
 * Redis, the sinks' outage journals beside it: journaled-outbox.ts), BullMQ when
 * `redis` is configured. The embedded store's class is chosen here and nowhere else.
 * BullMQ is loaded only with Redis, so a node without it does not pay for it. A node
 * whose Redis is down at start still proxies: its sinks keep events in their outage
 * journals, `unreachable` says so, and Redis is asked again (at most once a second per
 * sink) until it answers; then the journals move into the queues. A node id another
 * running node holds on that Redis is no outage: the stores do not open
 * (NodeIdInUseError), so the node's start is refused, and a sink config.apply adds
 * keeps retrying its start, rather than sharing queues; found only once Redis is back,
 * `claimLost` says so and the sinks keep their journals.
 */
export async function openOutboxStores(config: WeirConfig, { onRedisError, unreachable, reachable, lost, claimLost, runFirstSequence, deadline }: OutboxStoreEvents): Promise<OutboxStores> {
  const embedded = new JournalOutboxStore({ stateDir: config.node.state_dir, limits: config.outbox });
  if (!config.redis) {
    return { open: async (sink) => ({ store: 'embedded', outbox: await embedded.open(sink) }), redisUp: () => null, close: () => embedded.close() };
  }
  const { BullmqOutboxStore } = await import('./bullmq-outbox-store.js');
  const connect = (): Promise<BullmqOutboxStore> =>
    BullmqOutboxStore.connect({
      url: redisAddressOf(config.redis!),
      nodeId: config.node.id,
      limits: config.outbox,
      onError: onRedisError,
      stateDir: config.node.state_dir,
      runFirstSequence,
      onLost: lost,
      onClaimLost: claimLost,
    });
  const health = new RedisHealth({ lost: unreachable, back: reachable });
  // The last refusal of weir by Redis (RedisRefusedError), which a sink opened meanwhile names as its outage.
  let refused: string | undefined;
  const noteRefusal = (err: unknown): void => {
    refused = err instanceof RedisRefusedError ? err.message : undefined;
  };
  let redis = await connect().catch((err: unknown) => {
    if (err instanceof NodeIdInUseError) throw err;
    noteRefusal(err);
    unreachable(`Redis is unreachable at start (${err instanceof Error ? err.message : 'error'}); sinks keep events in their outage journals until Redis answers`);
    health.markLost(err);
    return null;
  });
  let connecting: Promise<BullmqOutboxStore> | null = null;
  let closed = false;
  let refusedTold = false;
  /** The store once Redis answers; one connection attempt at a time, each sink's journal move asking. */
  const late = (): Promise<BullmqOutboxStore> => {
    if (redis) return Promise.resolve(redis);
    connecting ??= connect().then(
      async (store) => {
        connecting = null;
        if (closed) {
          await store.close();
          throw new Error('the outbox stores are closed');
        }
        redis = store;
        return store;
      },
      (err: unknown) => {
        connecting = null;
        noteRefusal(err);
        if (err instanceof NodeIdInUseError && !refusedTold) {
          refusedTold = true;
          claimLost(`${err.message}; the sinks keep events in their outage journals`);
        }
        throw err;
      },
    );
    return connecting;
  };
  return {
    redisUp: () => health.up,
    async open(sink, opts) {
      const journal = await embedded.open(sink);
      // A sink added or replaced (config.apply) while Redis is down or hung would wait for
      // Redis, and the apply with it: after a while its appends go to the journal instead.
      let opening: Promise<BullmqOutbox> = late().then((store) => store.open(sink, opts));
      const first = await deadline.within(
        opening.catch(() => null),
        redis ? REDIS_OPEN_WAIT_MS : 0,
      );
      // An open that answers late is taken; one that failed is tried again.
      const openRedis = (): Promise<BullmqOutbox> => (opening = opening.catch(() => late().then((store) => store.open(sink, opts))));
      const outbox = new JournaledOutbox({ sink, batchSize: opts?.batchSize ?? 1, redis: first, unopened: refused, openRedis, journal, deadline, health });
      return { store: 'redis', outbox };
    },
    async close() {
      closed = true;
      // Handing the leases back and releasing the node's claim are courtesies: the next
      // start takes both back (BullmqOutbox.open, RedisNodeClaim), so a Redis that does
      // not answer is not waited for past the stop's deadline.
      await deadline.within(
        (async () => {
          await connecting?.catch(() => undefined);
          await redis?.close();
        })(),
      );
      await embedded.close();
    },
  };
}
