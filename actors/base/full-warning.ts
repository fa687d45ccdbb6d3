import type { Logger } from 'pino';

/**
 * Tells the log when a bounded pool (control plane and IPC connections, live
 * subscribers, proxy connections) fills up: once each time it does, not once per
 * refusal, so a flood of refused clients cannot flood the log. Taking a place again
 * re-arms it.
 */
export class FullWarning {
  private warned = false;

  constructor(
    private readonly log: Logger,
    private readonly limit: number,
    private readonly message: string,
  ) {}

  refused(): void {
    if (!this.warned) this.log.warn({ limit: this.limit }, this.message);
    this.warned = true;
  }

  admitted(): void {
    this.warned = false;
  }
}
