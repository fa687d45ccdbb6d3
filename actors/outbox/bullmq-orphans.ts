import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { JobData } from './bullmq-jobs.js';

/** How often a sink's active jobs are checked against the node's leases. @defaultValue 10000 */
export const ORPHAN_SWEEP_MS = 10_000;

/** A lease under way for longer is taken as one that will not answer. */
const STUCK_LEASE_MS = 30_000;

export interface OrphanSweepParts {
  redis: Redis;
  queue: Queue<JobData, string, string>;
  /** The queue's `active` list key. */
  activeKey: string;
  /** Job ids of the leases this outbox instance holds (being settled included). */
  held: () => ReadonlySet<string>;
  everyMs?: number;
}

/**
 * Gives back the jobs of a sink's queue that are active in Redis while no lease of the
 * node holds them. A lease is BullMQ's moveToActive: when Redis dies after running it
 * (its AOF keeps the move) and before its reply, the worker connection sends the
 * command again once Redis is back, and the node gets the answer of that second run,
 * the next job or none. The first job stays active under the node's lock, delivered by
 * nobody, until the node's next start. (LeaseBook's own bookkeeping has a like window:
 * a settle forgets its id after the write, when the entry may be leased again.) No
 * stalled-job checker runs (leases are the node's own), so this one does: a job found
 * active and unheld by two sweeps in a row, with no lease under way at either, is moved
 * back to wait. Only the node leases its queues (redis-node-claim.ts), and a lease's
 * reply comes in milliseconds, so such a job is no lease to come; a lease under way for
 * over STUCK_LEASE_MS (one Redis never answered) no longer holds the sweep back.
 */
export class OrphanSweep {
  private last = Date.now();
  private suspects = new Set<string>();
  /** Start times of the leases under way. */
  private readonly underWay = new Set<{ at: number }>();

  constructor(private readonly p: OrphanSweepParts) {}

  /** Runs a lease, known as under way meanwhile: its jobs are active before they are held. */
  async lease<T>(take: () => Promise<T>): Promise<T> {
    const lease = { at: Date.now() };
    this.underWay.add(lease);
    try {
      return await take();
    } finally {
      this.underWay.delete(lease);
    }
  }

  private leasing(now: number): boolean {
    return [...this.underWay].some((l) => now - l.at < STUCK_LEASE_MS);
  }

  /** At most once per `everyMs`; resolves with the number of jobs moved back. Redis errors wait for the next sweep. */
  async sweep(now = Date.now()): Promise<number> {
    if (now - this.last < (this.p.everyMs ?? ORPHAN_SWEEP_MS) || this.leasing(now)) return 0;
    this.last = now;
    let active: string[];
    try {
      active = await this.p.redis.lrange(this.p.activeKey, 0, -1);
    } catch {
      return 0;
    }
    if (this.leasing(Date.now())) return 0;
    const held = this.p.held();
    const unheld = active.filter((id) => !held.has(id));
    const orphans = unheld.filter((id) => this.suspects.has(id));
    this.suspects = new Set(unheld.filter((id) => !this.suspects.has(id)));
    let moved = 0;
    for (const id of orphans) {
      try {
        const job = await this.p.queue.getJob(id);
        if (!job || this.p.held().has(id)) continue;
        // "0": BullMQ's scripts skip the lock check, as a start does for its dead run's leases.
        await job.moveToWait('0');
        moved++;
      } catch {
        // Redis down or full: still active, found again by a later sweep.
        this.suspects.add(id);
      }
    }
    return moved;
  }
}
