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
  /** Waits under way before the stop began: begin() gives each its timer. */
  private readonly waiting = new Set<(ms: number) => void>();

  /** The stop has begun: every wait ends at the latest `ms` from now. Only the first call counts. */
  begin(ms: number): void {
    if (this.atMs !== null) return;
    this.atMs = Date.now() + ms;
    for (const giveUpIn of this.waiting) giveUpIn(ms);
    this.waiting.clear();
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
   * whichever comes first; the promise itself goes on. Its timers are cleared once it
   * settles, so a node that runs for months and waits often holds none of them.
   */
  within<T>(promise: Promise<T>, capMs = Infinity): Promise<T | null> {
    return new Promise<T | null>((resolve, reject) => {
      const timers: NodeJS.Timeout[] = [];
      const end = (): void => {
        for (const timer of timers) clearTimeout(timer);
        this.waiting.delete(giveUpIn);
      };
      const giveUpIn = (ms: number): void => {
        timers.push(
          setTimeout(() => {
            end();
            resolve(null);
          }, ms),
        );
      };
      if (capMs !== Infinity) giveUpIn(capMs);
      if (this.atMs === null) this.waiting.add(giveUpIn);
      else giveUpIn(this.leftMs());
      promise.then(
        (value) => {
          end();
          resolve(value);
        },
        (err: unknown) => {
          end();
          reject(err);
        },
      );
    });
  }
}
