import { UnrecoverableError, Worker } from 'bullmq';
import { Cluster } from 'ioredis';
import { connectRedis, workerConnection, type RedisAddress, type RedisClient } from '../redis/redis-client.js';
import type { DeliverEntries } from '../contracts/outbox.js';
import { COUNTED_FIELD, DeliveryCounts } from './bullmq-counts.js';
import { readBodies } from './bullmq-bodies.js';
import { bytesOf, eventsOf, holdsBodies, RetryAt, toEntries, type JobData, type OutboxJob } from './bullmq-jobs.js';
import type { SinkKeys } from './bullmq-keys.js';

export interface BullmqDeliveryOptions {
  /** The Redis that holds the queue: a redis:// or rediss:// URL, or a cluster's seeds. */
  url: RedisAddress;
  /** The sink's queue (bullmq-keys.ts): any node's, so a process apart from the node can deliver it. */
  keys: SinkKeys;
  deliver: DeliverEntries;
  /** Events the worker holds at once (batch size × requests in flight); it takes jobs by the size of those it took last. */
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

/** How long an idle worker's blocking wait for a job lasts (BullMQ drainDelay). */
const IDLE_WAIT_S = 60;

/** How long after its append a job whose bodies are missing waits for them (withoutBodies). */
const BODIES_WAIT_MS = 60_000;

/** A count or a read Redis refused fails the attempt, tried again RETRY_SOON_MS later (receivers dedupe). */
const RETRY_SOON_MS = 1000;
const retrySoon =
  (what: string) =>
  (err: unknown): never => {
    throw new RetryAt(`${what}: ${err instanceof Error ? err.message : String(err)}`, Date.now() + RETRY_SOON_MS);
  };
const uncounted = retrySoon('the delivery could not be counted');
const unread = retrySoon('the job could not be read');

/**
 * Delivers a sink's Redis outbox with a BullMQ Worker, the events of a job together:
 * BullMQ moves each job to active under the worker's lock, renews the lock, gives a
 * dead worker's jobs back (stalled-job recovery), and holds a retried job in its
 * delayed set until the time the delivery asked for (the `retry-at` backoff). A dead
 * letter is a job failed with UnrecoverableError, kept in BullMQ's failed set. Weir adds
 * the counters (DeliveryCounts). Any number of these may run on one queue, in the node
 * or in `weir deliver` processes.
 */
export class BullmqDelivery {
  private readonly worker: Worker<JobData, string, string>;
  private readonly redis: RedisClient;
  private readonly connection: ReturnType<typeof workerConnection>;
  private readonly counts: DeliveryCounts;
  private readonly keys: SinkKeys;
  private readonly events: number;
  private perJob = 1;

  constructor(opts: BullmqDeliveryOptions) {
    const onError = opts.onError ?? (() => undefined);
    // No per-command retry limit: a count waits for a Redis outage to end, as the job does.
    this.redis = connectRedis(opts.url, { maxRetriesPerRequest: null });
    this.redis.on('error', onError);
    this.connection = workerConnection(opts.url);
    if (this.connection instanceof Cluster) this.connection.on('error', onError);
    this.keys = opts.keys;
    this.events = opts.concurrency;
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
    // A job taken again after its worker died may have been delivered and counted: then it is complete.
    if (job.stalledCounter > 0 && (await this.counted(job))) return 'delivered';
    const stored = holdsBodies(job.data) ? null : (await readBodies(this.redis, this.keys, [job.id!]).catch(unread))[0]!;
    const entries = toEntries(job, stored);
    if (!entries) return this.withoutBodies(job);
    // Room for the next request's jobs; 400 jobs of 100 envelopes for 4 requests held 40,000 in memory.
    this.perJob += (entries.length - this.perJob) / 2;
    this.worker.concurrency = Math.min(this.events, Math.max(1, Math.round((2 * this.events) / this.perJob)));
    const settled = await deliver(entries);
    const counted = { jobId: job.id!, bytes: bytesOf(entries), events: entries.length };
    if (settled.kind === 'ack') {
      await this.counts.delivered(counted).catch(uncounted);
      return 'delivered';
    }
    await this.counts.failed(counted, settled.error, Date.now(), settled.kind === 'dead').catch(uncounted);
    throw settled.kind === 'retry' ? new RetryAt(settled.error, settled.notBeforeUnixMs) : new UnrecoverableError(settled.error);
  }

  /** Whether a job's delivery was counted (bullmq-counts.ts). */
  private async counted(job: OutboxJob): Promise<boolean> {
    return (await this.redis.hexists(this.keys.base + job.id!, COUNTED_FIELD).catch(unread)) === 1;
  }

  /**
   * A job whose bodies are gone was counted delivered: it is complete. One whose bodies
   * are not there yet (the add that wrote them failed, and the move of the outage
   * journal writes them again) is tried again, until BODIES_WAIT_MS after its append;
   * then it is a dead letter, which a replay delivers once its bodies are written.
   */
  private async withoutBodies(job: OutboxJob): Promise<string> {
    if (await this.counted(job)) return 'delivered';
    const why = `the envelopes of job ${job.id!} are not in Redis`;
    if (Date.now() - job.timestamp < BODIES_WAIT_MS) throw new RetryAt(why, Date.now() + RETRY_SOON_MS);
    await this.counts.failed({ jobId: job.id!, bytes: 0, events: eventsOf(job.data).length }, why, Date.now(), true).catch(uncounted);
    throw new UnrecoverableError(why);
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
