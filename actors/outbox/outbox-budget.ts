import fs from 'node:fs';
import type { OutboxLimits, WriteBlockReason } from '../contracts/outbox.js';
import { OutboxWriteBlocked } from './outbox-errors.js';

/** How long one statfs answer stands; appends in between subtract what they add. */
const STATFS_TTL_MS = 1000;

/**
 * Once max_bytes blocked writes, they resume only when deliveries have brought the
 * outbox below this share of it. Without the margin, a smaller event could slip into
 * the last bytes between refused bigger ones, splitting one outage into many gaps.
 */
const RESUME_BELOW = 0.9;

/**
 * A store's node-wide disk protection: bytes held against max_bytes, the state dir's
 * free space against min_free_bytes. An append reserves its bytes first; one that would
 * cross a limit is refused, and writes stay blocked until a later append fits.
 */
export class OutboxBudget {
  private readonly held = new Map<string, number>();
  private free: { bytes: number; at: number } | null = null;

  /**
   * @param statfsDir directory whose file system must keep min_free_bytes; null for a
   *   store whose data is not on this machine (Redis)
   * @param onChange told each time writes become blocked or unblocked
   * @param blockedBy the block a previous run left, standing until an append fits
   */
  constructor(
    private readonly limits: OutboxLimits,
    private readonly statfsDir: string | null,
    private readonly onChange: (reason: WriteBlockReason | null) => void,
    private blockedBy: WriteBlockReason | null = null,
  ) {}

  get reason(): WriteBlockReason | null {
    return this.blockedBy;
  }

  private get totalBytes(): number {
    return [...this.held.values()].reduce((sum, n) => sum + n, 0);
  }

  /** What a sink holds, as its store read it (at open; for Redis at each state read, as workers elsewhere deliver). */
  load(sink: string, bytes: number): void {
    const before = this.held.get(sink) ?? 0;
    this.held.set(sink, bytes);
    if (bytes < before) this.resumeIfRoom();
  }

  /** Reserves room for an append of `bytes`, or throws OutboxWriteBlocked. */
  async reserve(sink: string, bytes: number): Promise<void> {
    const reason = await this.check(bytes);
    if (reason) throw this.block(reason);
    this.held.set(sink, (this.held.get(sink) ?? 0) + bytes);
    if (this.free) this.free.bytes -= bytes;
  }

  /** An append committed: writes flow again. */
  committed(): void {
    this.set(null);
  }

  /** Bytes that left the sink (delivered, or a reservation whose append failed). */
  release(sink: string, bytes: number): void {
    this.held.set(sink, Math.max(0, (this.held.get(sink) ?? 0) - bytes));
    this.resumeIfRoom();
  }

  /** The store itself refused the write for lack of room (Redis out of memory). */
  storeFull(options: ErrorOptions): OutboxWriteBlocked {
    return this.block('store_full', options);
  }

  /**
   * The store failed an append the limits let through (the disk filled faster than the
   * last statfs said, or another failure): blocked as min_free_bytes if the disk says so now, else store_full.
   */
  async commitFailed(options: ErrorOptions): Promise<OutboxWriteBlocked> {
    this.free = null;
    const full = this.statfsDir !== null && (await this.freeBytes(this.statfsDir)) < this.limits.min_free_bytes;
    return this.block(full ? 'min_free_bytes' : 'store_full', options);
  }

  private resumeIfRoom(): void {
    if (this.blockedBy === 'max_bytes' && this.totalBytes < this.limits.max_bytes * RESUME_BELOW) this.set(null);
  }

  private async check(bytes: number): Promise<WriteBlockReason | null> {
    if (this.totalBytes + bytes > this.limits.max_bytes) return 'max_bytes';
    if (this.blockedBy === 'max_bytes' && this.totalBytes >= this.limits.max_bytes * RESUME_BELOW) return 'max_bytes';
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

  /** Writes are blocked for `reason`: the error that tells the caller so. */
  private block(reason: WriteBlockReason, options?: ErrorOptions): OutboxWriteBlocked {
    this.set(reason);
    const why = {
      max_bytes: `the outbox holds ${this.totalBytes} of ${this.limits.max_bytes} bytes`,
      min_free_bytes: `less than ${this.limits.min_free_bytes} bytes would stay free in ${this.statfsDir}`,
      store_full: 'the store is out of room',
    }[reason];
    return new OutboxWriteBlocked(reason, `outbox writes are blocked (${reason}): ${why}`, options);
  }

  private set(reason: WriteBlockReason | null): void {
    if (reason === this.blockedBy) return;
    this.blockedBy = reason;
    this.onChange(reason);
  }
}
