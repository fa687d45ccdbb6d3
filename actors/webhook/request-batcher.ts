/**
 * Groups the entries that BullMQ hands a worker's processors into requests: one POST
 * carries every job's entries waiting when a request slot is free, up to `batchSize`
 * entries, and a job's entries always together (a job larger than `batchSize` goes
 * alone). With no backlog a job goes out in the next turn of the event loop; under a
 * backlog the worker holds many jobs at once and the slots are busy, so jobs collect
 * into full batches while the requests ahead are under way.
 */
export class RequestBatcher<E, V> {
  private waiting: { entries: E[]; resolve: (verdict: V) => void }[] = [];
  /** Entries in `waiting`. */
  private entries = 0;
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly send: (entries: E[]) => Promise<V>,
    private readonly opts: { batchSize: number; concurrency: number },
  ) {}

  /** Resolves with the verdict of the request that carried `entries`; `send` never rejects. */
  add(entries: E[]): Promise<V> {
    return new Promise((resolve) => {
      this.waiting.push({ entries, resolve });
      this.entries += entries.length;
      if (this.entries >= this.opts.batchSize) this.flush();
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
      const batch = this.nextBatch();
      this.inFlight++;
      void this.send(batch.flatMap((w) => w.entries)).then((verdict) => {
        this.inFlight--;
        for (const w of batch) w.resolve(verdict);
        this.flush();
      });
    }
  }

  /** The first waiting jobs whose entries fit in one request, at least one job. */
  private nextBatch(): typeof this.waiting {
    let taken = 1;
    let size = this.waiting[0]!.entries.length;
    while (taken < this.waiting.length && size + this.waiting[taken]!.entries.length <= this.opts.batchSize) size += this.waiting[taken++]!.entries.length;
    this.entries -= size;
    return this.waiting.splice(0, taken);
  }
}
