import type { Logger } from 'pino';
import type { DeliveryVerdict } from './delivery-verdict.js';

/**
 * Logs a sink's delivery trouble once when it starts and once when it ends, not once per
 * attempt: a receiver answering 500 is tried again and again (each attempt is counted in
 * the sink's state), and one line per attempt would bury everything else. Shared by the
 * node's deliveries of both stores, so an episode is one whichever store the entry was in.
 */
export class DeliveryTrouble {
  private failing: { since: number; attempts: number } | null = null;
  /** When a delivery was last acknowledged, for the connector state. */
  lastAckAt: number | null = null;

  constructor(
    /** How the lines name the sink: its tag, or `node/tag` for `weir deliver`. */
    private readonly sink: string,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  observe(verdict: DeliveryVerdict): void {
    if (verdict.kind === 'ack') {
      this.lastAckAt = this.now();
      if (!this.failing) return;
      const attempts = this.failing.attempts;
      const seconds = Math.round((this.now() - this.failing.since) / 100) / 10;
      this.failing = null;
      this.log.info(
        { sink: this.sink, failed_attempts: attempts, failing_for_s: seconds },
        `sink ${this.sink}: deliveries succeed again after ${attempts} failed attempts over ${seconds} s`,
      );
      return;
    }
    if (this.failing) {
      this.failing.attempts++;
      return;
    }
    this.failing = { since: this.now(), attempts: 1 };
    this.log.warn({ sink: this.sink, error: verdict.error }, `sink ${this.sink}: deliveries failing (${verdict.error})`);
  }
}
