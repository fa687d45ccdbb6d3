import type { WeirConfig } from '../config/schema.js';
import type { LeasedOutbox, OutboxOpenOptions } from '../contracts/outbox.js';
import type { BullmqOutboxStore } from './bullmq-outbox-store.js';
import { JournalOutboxStore } from './journal-outbox-store.js';
import { LmdbOutboxStore } from './lmdb-outbox-store.js';
import type { StopDeadline } from '../base/stop-deadline.js';
import { LateOutbox } from './late-outbox.js';
import { SpillOutbox } from './spill-outbox.js';
import { NodeIdInUseError } from './redis-node-claim.js';
import { RedisHealth } from './redis-health.js';

/** How long a sink's opening waits for Redis before it takes the embedded store alone. */
const REDIS_OPEN_WAIT_MS = 3000;

export interface OutboxStores {
  /** The kind sinks are kept in: `redis` when Redis was reachable at start, else `embedded`. */
  readonly kind: 'redis' | 'embedded';
  open(sink: string, opts?: OutboxOpenOptions): Promise<LeasedOutbox>;
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
 * Opens the node's outbox stores: without Redis, the embedded journal (the whole
 * outbox); with Redis, BullMQ and the LMDB spill store beside it.
 * BullMQ is loaded only then, so a node without Redis does not pay for it. A node
 * whose Redis is down at start still proxies: its sinks run on the embedded store,
 * `unreachable` says so, and Redis is asked again (LateOutbox, at most every 5 s) until
 * it answers; then they take writes there again and deliver what Redis held from
 * before. (Run on the embedded store to the next start, that backlog sat in Redis
 * undelivered, and out of `pending`, for the whole run.) A node id another running
 * node holds on that Redis is no outage: the stores do not open (NodeIdInUseError), so
 * the node's start is refused, and a sink config.apply adds keeps retrying its start,
 * rather than sharing queues; found only once Redis is back, `claimLost` says so and
 * the sinks stay on the embedded store.
 */
export async function openOutboxStores(config: WeirConfig, { onRedisError, unreachable, reachable, lost, claimLost, runFirstSequence, deadline }: OutboxStoreEvents): Promise<OutboxStores> {
  if (!config.redis) {
    const journal = new JournalOutboxStore({ stateDir: config.node.state_dir, limits: config.outbox });
    return { kind: 'embedded', open: (sink) => journal.open(sink), redisUp: () => null, close: () => journal.close() };
  }
  const embedded = new LmdbOutboxStore({ stateDir: config.node.state_dir, limits: config.outbox });
  const { BullmqOutboxStore } = await import('./bullmq-outbox-store.js');
  const connect = (): Promise<BullmqOutboxStore> =>
    BullmqOutboxStore.connect({
      url: config.redis!.url.reveal(),
      nodeId: config.node.id,
      limits: config.outbox,
      onError: onRedisError,
      stateDir: config.node.state_dir,
      runFirstSequence,
      onLost: lost,
      onClaimLost: claimLost,
    });
  const health = new RedisHealth({ lost: unreachable, back: reachable });
  let redis = await connect().catch((err: unknown) => {
    if (err instanceof NodeIdInUseError) throw err;
    unreachable(`Redis is unreachable at start (${err instanceof Error ? err.message : 'error'}); sinks use the embedded outbox until Redis answers`);
    health.markLost();
    return null;
  });
  let connecting: Promise<BullmqOutboxStore> | null = null;
  let closed = false;
  let refusedTold = false;
  /** The store once Redis answers; one connection attempt at a time, each sink's LateOutbox asking. */
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
        if (err instanceof NodeIdInUseError && !refusedTold) {
          refusedTold = true;
          claimLost(`${err.message}; the sinks stay on the embedded outbox`);
        }
        throw err;
      },
    );
    return connecting;
  };
  return {
    kind: 'redis',
    redisUp: () => health.up,
    async open(sink, opts) {
      const spill = await embedded.open(sink);
      // A sink added or replaced (config.apply) while Redis is down or hung would wait for
      // Redis, and the apply with it: after a while it runs on the embedded store instead,
      // and on Redis again once the open succeeds (LateOutbox).
      const opening = late().then((store) => store.open(sink, opts));
      const primary = await deadline.within(
        opening.catch(() => null),
        redis ? REDIS_OPEN_WAIT_MS : 0,
      );
      if (primary) return new SpillOutbox(primary, spill, { deadline, health });
      if (redis) unreachable(`Redis did not answer when sink "${sink}" opened; it uses the embedded outbox until Redis answers`);
      return new SpillOutbox(new LateOutbox(sink, () => late().then((store) => store.open(sink, opts)), opening), spill, { deadline, health });
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
