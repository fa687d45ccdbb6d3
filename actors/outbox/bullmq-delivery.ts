import { UnrecoverableError, Worker } from 'bullmq';
import { Cluster } from 'ioredis';
import { connectRedis, workerConnection, type RedisAddress, type RedisClient } from '../redis/redis-client.js';
import type { DeliverEntries } from '../contracts/outbox.js';
import { DeliveryCounts } from './bullmq-counts.js';
import { bytesOf, RetryAt, toEntries, type JobData, type OutboxJob } from './bullmq-jobs.js';
import type { SinkKeys } from './bullmq-keys.js';

export interface BullmqDeliveryOptions {
  /** The Redis that holds the queue: a redis:// or rediss:// URL, or a cluster's seeds. */
  url: RedisAddress;
  /** The sink's queue (bullmq-keys.ts): any node's, so a process apart from the node can deliver it. */
  keys: SinkKeys;
  deliver: DeliverEntries;
  /** Jobs the worker holds at once: the batch size times the requests in flight. */
  concurrency: number;
  /** Told of the worker's and the counters' connection errors; BullMQ reconnects by itself. */
  onError?: (err: Error) => void;
  /**
   * How long a job stays locked to its worker without a renewal (BullMQ renews it at half
   * that while the job is processed). A worker that dies leaves its jobs to whichever
   * worker's stalled-job check first finds their locks expired: within lockMs and two
   * checks of a worker's death. @defaultValue 15000
   */
  lockMs?: number;
  /**
   * How often the worker looks for stalled jobs: a script of about ten commands, the
   * largest part of an idle worker's cost to Redis. @defaultValue 15000
   */
  stalledCheckMs?: number;
}

/**
 * Delivers a sink's Redis outbox with a BullMQ Worker, the events of a job together:
 * BullMQ moves each job to active under the worker's lock, renews the lock, gives a
 * dead worker's jobs back (stalled-job recovery), and holds a retried job in its
 * delayed set until the time the delivery asked for (the `retry-at` backoff). A dead
 * letter is a job failed with UnrecoverableError, kept in BullMQ's failed set. What weir adds is the counters
 * (DeliveryCounts). Any number of these may run on one queue, in the node or in
 * `weir deliver` processes.
 */
/** How long an idle worker's blocking wait for a job lasts (BullMQ drainDelay). */
const IDLE_WAIT_S = 60;

/** How soon a job whose count Redis refused is attempted again. */
const UNCOUNTED_RETRY_MS = 1000;

/** A count Redis refused: the attempt fails, so the job is delivered again and counted then (receivers dedupe). */
function uncounted(err: unknown): never {
  throw new RetryAt(`the delivery could not be counted: ${err instanceof Error ? err.message : String(err)}`, Date.now() + UNCOUNTED_RETRY_MS);
}

export class BullmqDelivery {
  private readonly worker: Worker<JobData, string, string>;
  private readonly redis: RedisClient;
  private readonly connection: ReturnType<typeof workerConnection>;
  private readonly counts: DeliveryCounts;

  constructor(opts: BullmqDeliveryOptions) {
    const onError = opts.onError ?? (() => undefined);
    // No per-command retry limit: a count waits for a Redis outage to end, as the job does.
    this.redis = connectRedis(opts.url, { maxRetriesPerRequest: null });
    this.redis.on('error', onError);
    this.connection = workerConnection(opts.url);
    if (this.connection instanceof Cluster) this.connection.on('error', onError);
    this.counts = new DeliveryCounts(this.redis, opts.keys);
    this.worker = new Worker<JobData, string, string>(opts.keys.queue, (job) => this.process(job, opts.deliver), {
      connection: this.connection,
      prefix: opts.keys.prefix,
      concurrency: opts.concurrency,
      lockDuration: opts.lockMs ?? 15_000,
      stalledInterval: opts.stalledCheckMs ?? 15_000,
      // Seconds an idle worker's blocking wait lasts before it asks again (BZPOPMIN and a
      // script each time): an added job ends the wait at once, so a long one costs no
      // latency, only fewer commands while nothing comes.
      drainDelay: IDLE_WAIT_S,
      // A job whose worker died is delivered again, however often that happens; only the
      // receiver's answers or the retry window make a dead letter.
      maxStalledCount: Number.MAX_SAFE_INTEGER,
      settings: { backoffStrategy: (_attempts, _type, err) => Math.max(0, (err as RetryAt).notBeforeUnixMs - Date.now()) },
    });
    this.worker.on('error', onError);
  }

  private async process(job: OutboxJob, deliver: DeliverEntries): Promise<string> {
    const entries = toEntries(job);
    const settled = await deliver(entries);
    const counted = { jobId: job.id!, bytes: bytesOf(entries), events: entries.length };
    if (settled.kind === 'ack') {
      await this.counts.delivered(counted).catch(uncounted);
      return 'delivered';
    }
    await this.counts.failed(counted, settled.error, Date.now(), settled.kind === 'dead').catch(uncounted);
    throw settled.kind === 'retry' ? new RetryAt(settled.error, settled.notBeforeUnixMs) : new UnrecoverableError(settled.error);
  }

  /** Waits until the worker is connected and taking jobs. */
  async ready(): Promise<void> {
    await this.worker.waitUntilReady();
  }

  /**
   * Stops taking jobs and waits for those under way; `force` leaves them to the
   * stalled-job check of the next worker (they are delivered again, counted once).
   */
  async close(force = false): Promise<void> {
    await this.worker.close(force);
    this.redis.disconnect();
    if (this.connection instanceof Cluster) this.connection.disconnect();
  }
}
