/**
 * Groups the entries that BullMQ hands a worker's processors into requests: one POST
 * carries every entry waiting when a request slot is free, up to `batchSize`. With no
 * backlog an entry goes out alone in the next turn of the event loop; under a backlog
 * the worker holds many jobs at once and the slots are busy, so entries collect into
 * full batches while the requests ahead are under way.
 */
export class RequestBatcher<E, V> {
  private waiting: { entry: E; resolve: (verdict: V) => void }[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly send: (entries: E[]) => Promise<V>,
    private readonly opts: { batchSize: number; concurrency: number },
  ) {}

  /** Resolves with the verdict of the request that carried `entry`; `send` never rejects. */
  add(entry: E): Promise<V> {
    return new Promise((resolve) => {
      this.waiting.push({ entry, resolve });
      if (this.waiting.length >= this.opts.batchSize) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.flush();
        });
      }
    });
  }

  private flush(): void {
    while (this.waiting.length > 0 && this.inFlight < this.opts.concurrency) {
      const batch = this.waiting.splice(0, this.opts.batchSize);
      this.inFlight++;
      void this.send(batch.map((w) => w.entry)).then((verdict) => {
        this.inFlight--;
        for (const w of batch) w.resolve(verdict);
        this.flush();
      });
    }
  }
}
