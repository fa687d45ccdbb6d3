import fs from 'node:fs';
import type { OutboxLimits, WriteBlockReason } from '../contracts/outbox.js';
import { OutboxWriteBlocked, type AppendErrorOptions } from './outbox-errors.js';

type LimitReason = Exclude<WriteBlockReason, 'store_full'>;

/** How long one statfs answer stands; appends in between subtract what they add. */
const STATFS_TTL_MS = 1000;

/**
 * Once max_bytes blocked writes, they resume only when deliveries have brought the
 * outbox below this share of it. Without the margin, a smaller event could slip into
 * the last bytes between refused bigger ones, splitting one outage into many gaps.
 */
const RESUME_BELOW = 0.9;

/**
 * The node-wide disk protection of a store: bytes held per sink against max_bytes,
 * free space of the state dir against min_free_bytes. An append reserves its bytes
 * first; when a limit would be crossed it is refused and writes stay blocked until a
 * later append fits again (for max_bytes: until deliveries bring the outbox below
 * RESUME_BELOW of it).
 */
export class OutboxBudget {
  private readonly held = new Map<string, number>();
  private blockedBy: WriteBlockReason | null;
  private free: { bytes: number; at: number } | null = null;

  /**
   * @param statfsDir directory whose file system must keep min_free_bytes; null for a
   *   store whose data is not on this machine (Redis)
   * @param onChange told each time writes become blocked or unblocked
   * @param lastKnown the block a previous run left, standing until an append fits
   */
  constructor(
    private readonly limits: OutboxLimits,
    private readonly statfsDir: string | null,
    private readonly onChange: (reason: WriteBlockReason | null) => void,
    lastKnown: WriteBlockReason | null = null,
  ) {
    this.blockedBy = lastKnown;
  }

  get reason(): WriteBlockReason | null {
    return this.blockedBy;
  }

  get totalBytes(): number {
    let sum = 0;
    for (const n of this.held.values()) sum += n;
    return sum;
  }

  bytesOf(sink: string): number {
    return this.held.get(sink) ?? 0;
  }

  /**
   * Sets what a sink holds, as its store read it (at open; for Redis, at each state
   * read, since workers elsewhere deliver); deliveries may have unblocked writes.
   */
  load(sink: string, bytes: number): void {
    const before = this.bytesOf(sink);
    this.held.set(sink, bytes);
    if (bytes < before) this.resumeIfRoom();
  }

  /** Reserves room for an append of `bytes`, or throws OutboxWriteBlocked. */
  async reserve(sink: string, bytes: number): Promise<void> {
    const reason = await this.check(bytes);
    if (reason) {
      this.set(reason);
      throw new OutboxWriteBlocked(reason, `outbox writes are blocked (${reason}): ${this.describe(reason)}`);
    }
    this.held.set(sink, this.bytesOf(sink) + bytes);
    if (this.free) this.free.bytes -= bytes;
  }

  /** An append committed: writes flow again. */
  committed(): void {
    this.set(null);
  }

  /** Bytes that left the sink (delivered, or a reservation whose append failed). */
  release(sink: string, bytes: number): void {
    this.held.set(sink, Math.max(0, this.bytesOf(sink) - bytes));
    this.resumeIfRoom();
  }

  private resumeIfRoom(): void {
    if (this.blockedBy === 'max_bytes' && this.totalBytes < this.resumeBelow()) this.set(null);
  }

  /** The store itself refused the write for lack of room (Redis out of memory). */
  storeFull(options: AppendErrorOptions): OutboxWriteBlocked {
    this.set('store_full');
    return new OutboxWriteBlocked('store_full', 'outbox writes are blocked (store_full): the store is out of room', options);
  }

  /**
   * The store could not commit an append although the limits let it through: the disk
   * filled faster than the last statfs said (other files on it grew), or the store
   * failed otherwise. Writes pause as min_free_bytes when the disk now says so, else
   * as store_full, until an append commits again.
   */
  async commitFailed(options: AppendErrorOptions): Promise<OutboxWriteBlocked> {
    this.free = null;
    if (this.statfsDir === null || (await this.freeBytes(this.statfsDir)) >= this.limits.min_free_bytes) return this.storeFull(options);
    this.set('min_free_bytes');
    return new OutboxWriteBlocked('min_free_bytes', `outbox writes are blocked (min_free_bytes): ${this.describe('min_free_bytes')}`, options);
  }

  private async check(bytes: number): Promise<LimitReason | null> {
    if (this.totalBytes + bytes > this.limits.max_bytes) return 'max_bytes';
    if (this.blockedBy === 'max_bytes' && this.totalBytes >= this.resumeBelow()) return 'max_bytes';
    if (this.statfsDir === null) return null;
    return (await this.freeBytes(this.statfsDir)) - bytes < this.limits.min_free_bytes ? 'min_free_bytes' : null;
  }

  /** Free bytes of the state dir's file system: read again when stale or while writes are blocked. */
  private async freeBytes(dir: string): Promise<number> {
    if (!this.free || Date.now() - this.free.at > STATFS_TTL_MS || this.blockedBy !== null) {
      const st = await fs.promises.statfs(dir);
      this.free = { bytes: st.bavail * st.bsize, at: Date.now() };
    }
    return this.free.bytes;
  }

  private resumeBelow(): number {
    return this.limits.max_bytes * RESUME_BELOW;
  }

  private describe(reason: LimitReason): string {
    return reason === 'max_bytes'
      ? `the outbox holds ${this.totalBytes} of ${this.limits.max_bytes} bytes`
      : `less than ${this.limits.min_free_bytes} bytes would stay free in ${this.statfsDir}`;
  }

  private set(reason: WriteBlockReason | null): void {
    if (reason === this.blockedBy) return;
    this.blockedBy = reason;
    this.onChange(reason);
  }
}
