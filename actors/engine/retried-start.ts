import type { ConnectorState, Sink } from '../contracts/sink.js';

/** How long a sink whose start failed waits before it tries again. */
export const SINK_START_RETRY_MS = 5000;

/**
 * A sink that config.apply could not start (its outbox or file did not open). It keeps
 * its tag and tries again every SINK_START_RETRY_MS from the bus sequence where its events begin,
 * so what was published meanwhile is replayed to it from the ring once it runs (and
 * what left the ring by then is a replay gap); stopping it before hands that sequence
 * on to a replacement. Without it the tag would take no events and record no gap.
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

  state(): ConnectorState {
    return this.started ? this.inner.state() : { ...this.inner.state(), last_error: this.lastError };
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
      await this.inner.start(this.since);
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
