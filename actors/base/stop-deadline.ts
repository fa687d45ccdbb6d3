import { setMaxListeners } from 'node:events';
import { within } from './within.js';

/**
 * The one deadline a node's stop shares between its waits on what it does not control:
 * open flows ending, Redis answering, Webhook receivers answering. Each of them, waited
 * for in turn with a bound of its own, added up to 8–10 s with Redis hung, and a process
 * manager's stop timeout (systemd TimeoutStopSec, a Kubernetes grace period; often 10 s)
 * then SIGKILLed the node. The engine holds one from its start and begins it when the
 * stop begins; the parts that may wait then are given it when they are built, so a wait
 * already under way when the stop begins ends by the deadline too.
 */
export class StopDeadline {
  private atMs: number | null = null;
  /** Aborts at the deadline, ending the waits begun before the stop. */
  private readonly reached = new AbortController();
  /** Waits begun before the stop and not settled yet: the deadline's timer runs only while there are some. */
  private waits = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor() {
    // One listener per wait under way, and a stop may find many: none of them is a leak.
    setMaxListeners(0, this.reached.signal);
  }

  /** The stop has begun: every wait ends at the latest `ms` from now. Only the first call counts. */
  begin(ms: number): void {
    if (this.atMs !== null) return;
    this.atMs = Date.now() + ms;
    if (this.waits > 0) this.timer = setTimeout(() => this.reached.abort(), ms);
  }

  /** Whether the stop has begun. */
  get begun(): boolean {
    return this.atMs !== null;
  }

  /** Milliseconds left before the deadline, at most `capMs`; `capMs` (default Infinity) before the stop begins. */
  leftMs(capMs = Infinity): number {
    return Math.min(capMs, this.atMs === null ? Infinity : Math.max(0, this.atMs - Date.now()));
  }

  /**
   * The promise's value, or null once `capMs` have passed or the stop's deadline has,
   * whichever comes first; the promise itself goes on.
   */
  within<T>(promise: Promise<T>, capMs = Infinity): Promise<T | null> {
    if (this.atMs !== null) return within(promise, this.leftMs(capMs));
    this.waits++;
    return within(promise, capMs, this.reached.signal).finally(() => {
      if (--this.waits === 0) clearTimeout(this.timer);
    });
  }
}
