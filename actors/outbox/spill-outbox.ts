import type { DeadLetter, Outbox, OutboxAppend, OutboxEntry, OutboxState, ReplayGap } from '../contracts/outbox.js';
import { OutboxUnavailable } from './outbox-errors.js';

/**
 * A sink's Redis outbox with the embedded one beside it: appends that Redis cannot
 * take (it is down) are kept in the embedded store instead, and delivered from there,
 * so a Redis outage loses nothing. Each entry is settled in the store it came from.
 */
export class SpillOutbox implements Outbox {
  private readonly owner = new Map<string, Outbox>();
  private lastPrimary: OutboxState | null = null;

  constructor(
    private readonly primary: Outbox,
    private readonly spill: Outbox,
  ) {}

  get sink(): string {
    return this.primary.sink;
  }

  async append(entries: readonly OutboxAppend[]): Promise<void> {
    try {
      await this.primary.append(entries);
    } catch (err) {
      if (!(err instanceof OutboxUnavailable)) throw err;
      await this.spill.append(entries);
    }
  }

  onAppend(listener: () => void): () => void {
    const detach = [this.primary.onAppend(listener), this.spill.onAppend(listener)];
    return () => detach.forEach((d) => d());
  }

  /**
   * Spilled entries first, and alone when there are any: a lease from a Redis that has
   * stopped answering may take as long as the outage, and the spilled entries, leased
   * already, would wait with it.
   */
  async lease(max: number): Promise<OutboxEntry[]> {
    const spilled = await this.spill.lease(max);
    for (const e of spilled) this.owner.set(e.id, this.spill);
    if (spilled.length > 0) return spilled;
    const fresh = await this.primary.lease(max).catch(() => []);
    for (const e of fresh) this.owner.set(e.id, this.primary);
    return fresh;
  }

  /** An owner's ids are forgotten only once it recorded the ack, so an ack that failed (Redis down) can be made again. */
  async ack(ids: readonly string[]): Promise<void> {
    const byOwner = new Map<Outbox, string[]>();
    for (const id of ids) {
      const owner = this.owner.get(id);
      if (owner) byOwner.set(owner, [...(byOwner.get(owner) ?? []), id]);
    }
    const results = await Promise.allSettled(
      [...byOwner].map(async ([owner, owned]) => {
        await owner.ack(owned);
        for (const id of owned) this.owner.delete(id);
      }),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  async retry(id: string, error: string, notBeforeUnixMs: number): Promise<void> {
    const owner = this.owner.get(id);
    if (!owner) return;
    await owner.retry(id, error, notBeforeUnixMs);
    this.owner.delete(id);
  }

  async deadLetter(id: string, error: string): Promise<void> {
    const owner = this.owner.get(id);
    if (!owner) return;
    await owner.deadLetter(id, error);
    this.owner.delete(id);
  }

  async listDeadLetters(limit: number): Promise<DeadLetter[]> {
    const [a, b] = await Promise.all([this.spill.listDeadLetters(limit), this.primary.listDeadLetters(limit)]);
    return [...a, ...b].sort((x, y) => x.dead_at_unix_ms - y.dead_at_unix_ms).slice(0, limit);
  }

  async replayDeadLetters(ids?: readonly string[]): Promise<number> {
    const [a, b] = await Promise.all([this.spill.replayDeadLetters(ids), this.primary.replayDeadLetters(ids)]);
    return a + b;
  }

  async recordGap(gap: ReplayGap, continuesLast: boolean): Promise<void> {
    await this.primary.recordGap(gap, continuesLast).catch(() => this.spill.recordGap(gap, continuesLast));
  }

  async state(): Promise<OutboxState> {
    const [p, s] = await Promise.all([this.primaryState(), this.spill.state()]);
    const errors = [p.last_error, s.last_error].filter((e) => e !== null);
    const ages = [p.oldest_pending_age_ms, s.oldest_pending_age_ms].filter((a) => a !== null);
    return {
      pending: p.pending + s.pending,
      total_delivered: p.total_delivered + s.total_delivered,
      total_failed: p.total_failed + s.total_failed,
      replay_gaps: p.replay_gaps + s.replay_gaps,
      last_error: errors.sort((a, b) => b.at_unix_ms - a.at_unix_ms)[0] ?? null,
      outbox_storage: {
        store: p.outbox_storage.store,
        write_blocked: p.outbox_storage.write_blocked || s.outbox_storage.write_blocked,
        write_blocked_reason: p.outbox_storage.write_blocked_reason ?? s.outbox_storage.write_blocked_reason,
        bytes: p.outbox_storage.bytes + s.outbox_storage.bytes,
      },
      oldest_pending_age_ms: ages.length > 0 ? Math.max(...ages) : null,
      dead_letters: p.dead_letters + s.dead_letters,
      gaps: [...s.gaps, ...p.gaps].sort((a, b) => a.at_unix_ms - b.at_unix_ms),
    };
  }

  async close(): Promise<void> {
    await Promise.all([this.primary.close(), this.spill.close()]);
  }

  /** Redis's part of the state; while Redis cannot be reached, the last one read, so the spill part still shows. */
  private async primaryState(): Promise<OutboxState> {
    try {
      this.lastPrimary = await this.primary.state();
    } catch (err) {
      if (!this.lastPrimary) throw err;
    }
    return this.lastPrimary;
  }
}
