import type { ConnectorState, Sink } from '../contracts/sink.js';
import type { MissedRanges } from '../sinks/missed-ranges.js';

/** How long a sink whose start failed waits before it tries again. */
export const SINK_START_RETRY_MS = 5000;

/**
 * A sink that config.apply could not start (its outbox or file did not open). It keeps
 * its tag and tries again every SINK_START_RETRY_MS from the bus sequence where its events begin,
 * so what was published meanwhile is replayed to it from the ring once it runs (and
 * what left the ring by then is a replay gap); stopping it before hands that sequence
 * on to a replacement. Without it the tag would take no events and record no gap.
 * At the node's stop it tries once more, and if that fails too, leaves the range it
 * missed in MissedRanges for the tag's next start to record.
 */
export class RetriedStart implements Sink {
  private started = false;
  private timer: NodeJS.Timeout | null = null;
  private attempting: Promise<void> | null = null;
  private stopped: Promise<number> | null = null;
  private lastError: { message: string; at_unix_ms: number };

  constructor(
    private readonly inner: Sink,
    /** The sequence its events begin after. */
    private readonly since: number,
    error: unknown,
    private readonly ctx: { missed: MissedRanges; lastSequence(): number },
  ) {
    this.lastError = errorOf(error);
    this.schedule();
  }

  get tag(): string {
    return this.inner.tag;
  }

  get type(): string {
    return this.inner.type;
  }

  /** Started by its constructor's retries. */
  start(): Promise<void> {
    return Promise.resolve();
  }

  stop(): Promise<number> {
    this.stopped ??= this.halt();
    return this.stopped;
  }

  /**
   * The node's stop: no replacement will replay the ring for it, so one last attempt
   * (the store may be back since the last one) and then the missed range is kept.
   */
  async stopAtShutdown(): Promise<number> {
    const through = await this.stop();
    if (this.started) return through;
    await this.attempt();
    if (this.started) return this.inner.stop();
    const last = this.ctx.lastSequence();
    try {
      if (last > this.since) this.ctx.missed.add(this.tag, { from_sequence: this.since + 1, to_sequence: last, at_unix_ms: Date.now() });
    } catch {
      // A state dir that cannot be written keeps no record: the run's sink_start_failed warning is the trace left.
    }
    return through;
  }

  /** Until it runs it has kept nothing past where its events begin. */
  keptThrough(lastSequence: number): number {
    return this.started ? this.inner.keptThrough(lastSequence) : this.since;
  }

  state(): ConnectorState {
    return this.started ? this.inner.state() : { ...this.inner.state(), last_error: this.lastError };
  }

  async refreshState(): Promise<void> {
    if (this.started) await this.inner.refreshState?.();
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      this.attempting = this.attempt();
    }, SINK_START_RETRY_MS);
    this.timer.unref();
  }

  private async attempt(): Promise<void> {
    try {
      await this.ctx.missed.start(this.inner, this.since);
      this.started = true;
    } catch (err) {
      this.lastError = errorOf(err);
      if (!this.stopped) this.schedule();
    }
  }

  /** An attempt under way is waited for: a start that succeeds now is stopped, not left running. */
  private async halt(): Promise<number> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.attempting;
    return this.started ? this.inner.stop() : this.since;
  }
}

function errorOf(err: unknown): { message: string; at_unix_ms: number } {
  return { message: `sink could not start: ${err instanceof Error ? err.message : String(err)}`, at_unix_ms: Date.now() };
}
