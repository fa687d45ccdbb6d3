import type { LeasedOutbox, OutboxAppend, OutboxEntry } from '../contracts/outbox.js';
import { within } from '../base/within.js';
import { OutboxUnavailable } from '../outbox/outbox-errors.js';
import type { DeliveryTrouble } from './delivery-trouble.js';
import { settleFailure, type DeliveryVerdict, type RetryPolicy } from './delivery-verdict.js';
import { postWebhook, type WebhookTarget } from './webhook-post.js';

export interface ConnectorOptions extends RetryPolicy {
  target: WebhookTarget;
  /** Envelopes per request at most; 1 sends each envelope alone. */
  batchSize: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** Told of every attempt's verdict: logs when deliveries start and stop failing. */
  trouble: DeliveryTrouble;
  /** Told of the entries of each request the receiver acknowledged, at its answer. */
  acked?: (entries: readonly OutboxAppend[]) => void;
  /** How often due retries are looked for when nothing new arrives. @defaultValue 500 */
  pollMs?: number;
  /** How long a lease or a verdict's write is waited for before the loop goes on without it. @defaultValue 2000 */
  storeWaitMs?: number;
}

/** Answered requests per delivery slot whose verdicts may wait for the store at once. */
const RECORDING_PER_SLOT = 4;

/** What recording a failed attempt needs of an entry. */
type Failed = Pick<OutboxEntry, 'id' | 'attempts' | 'enqueued_at_unix_ms' | 'replayed_at_unix_ms'>;

/**
 * Delivers one sink's embedded outbox to its Webhook: leases entries, POSTs them, and
 * turns each verdict into ack, retry (full-jitter backoff, Retry-After honoured) or
 * dead letter. A Redis outbox is delivered by BullMQ workers instead (BullmqDelivery).
 */
export class WebhookConnector {
  private stopped = false;
  /** Requests waiting for their answer. */
  private inFlight = 0;
  /** Entries of answered requests whose verdicts are being recorded; below recordingMax, so leases stay bounded. */
  private recording = 0;
  private wake: (() => void) | null = null;
  private poked = false;
  private loop: Promise<void> | null = null;
  private readonly detach: (() => void)[] = [];
  /**
   * Verdicts the store could not record because it was unreachable (Redis down): the
   * entries stay leased, so they are recorded again before each lease until the store
   * takes them. Dropped on stop; closing the outbox makes those entries pending again.
   */
  private readonly unsettled: (() => Promise<void>)[] = [];
  /** Entries a lease that outlived storeWaitMs handed out after all: delivered next. */
  private readonly late: OutboxEntry[][] = [];

  constructor(
    private readonly outbox: LeasedOutbox,
    private readonly opts: ConnectorOptions,
  ) {}

  start(): void {
    this.detach.push(this.outbox.onAppend(() => this.poke()));
    this.loop = this.run();
  }

  /** Stops leasing and waits for the requests in flight; unacknowledged entries stay pending. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const d of this.detach) d();
    this.poke();
    await this.loop;
  }

  /** Wakes the loop; a poke while it is not asleep makes its next sleep return at once. */
  private poke(): void {
    if (this.wake) this.wake();
    else this.poked = true;
  }

  private async run(): Promise<void> {
    const pending = new Set<Promise<void>>();
    const track = (work: Promise<void>, done: () => void): void => {
      const job = work.finally(() => {
        done();
        pending.delete(job);
        this.poke();
      });
      pending.add(job);
    };
    while (!this.stopped) {
      for (const settle of this.unsettled.splice(0)) await this.settle(settle);
      let leased = false;
      while (!this.stopped && this.inFlight < this.opts.concurrency && this.recording < this.recordingMax) {
        const entries = this.late.shift() ?? (await this.lease());
        if (entries.length === 0) break;
        leased = true;
        this.inFlight++;
        const count = entries.length;
        // The request's slot is free once the answer is in: the next request does not
        // wait for the store to commit this one's verdict (the entries stay leased meanwhile).
        track(
          this.attempt(entries).then((record) => {
            this.recording += count;
            track(record(), () => (this.recording -= count));
          }),
          () => this.inFlight--,
        );
      }
      if (!leased || this.inFlight >= this.opts.concurrency || this.recording >= this.recordingMax) await this.sleep(this.opts.pollMs ?? 500);
    }
    while (pending.size > 0) await Promise.all(pending);
  }

  /**
   * A lease, waited for at most storeWaitMs. A Redis command in flight when Redis dies
   * waits for its return (BullMQ's worker connection retries it without limit), and
   * meanwhile the spilled entries in the embedded store must still go out.
   */
  private async lease(): Promise<OutboxEntry[]> {
    const leasing = this.outbox.lease(this.opts.batchSize).catch(() => []);
    const entries = await within(leasing, this.storeWaitMs);
    if (entries) return entries;
    void leasing.then((late) => {
      if (late.length > 0) this.late.push(late);
      this.poke();
    });
    return [];
  }

  /**
   * Four times what the requests in flight hold: verdicts of several answers go in one
   * commit of the embedded store, which takes a few ms, and the commit of a big append
   * longer; with fewer waiting, requests would wait for the store (with one event per
   * request, for `concurrency` events per commit).
   */
  private get recordingMax(): number {
    return RECORDING_PER_SLOT * this.opts.concurrency * this.opts.batchSize;
  }

  private get storeWaitMs(): number {
    return this.opts.storeWaitMs ?? 2000;
  }

  private sleep(ms: number): Promise<void> {
    if (this.poked) {
      this.poked = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = null;
        done();
      };
    });
  }

  /**
   * POSTs the entries; resolves at the answer with what records its verdict, which
   * holds none of their bodies while it waits for the store.
   */
  private async attempt(entries: OutboxEntry[]): Promise<() => Promise<void>> {
    const verdict = await postWebhook(this.opts.target, entries);
    this.opts.trouble.observe(verdict);
    if (verdict.kind === 'ack') {
      this.opts.acked?.(entries);
      const ids = entries.map((e) => e.id);
      return () => this.settle(() => this.outbox.ack(ids));
    }
    const failed = entries.map(({ id, attempts, enqueued_at_unix_ms, replayed_at_unix_ms }) => ({ id, attempts, enqueued_at_unix_ms, replayed_at_unix_ms }));
    return () => this.recordFailure(failed, verdict);
  }

  private async recordFailure(entries: Failed[], verdict: Exclude<DeliveryVerdict, { kind: 'ack' }>): Promise<void> {
    const now = Date.now();
    for (const entry of entries) {
      const settled = settleFailure(verdict, entry, this.opts, now);
      await this.settle(() =>
        settled.kind === 'retry' ? this.outbox.retry(entry.id, settled.error, settled.notBeforeUnixMs) : this.outbox.deadLetter(entry.id, settled.error),
      );
    }
  }

  /**
   * Records a verdict; one the store could not take for being unreachable is kept for
   * the next round. A write that hangs (see lease) frees the delivery slot after
   * storeWaitMs and completes in the background; the entry stays leased meanwhile.
   */
  private async settle(record: () => Promise<void>): Promise<void> {
    const recording = record().catch((err: unknown) => {
      if (err instanceof OutboxUnavailable) this.unsettled.push(record);
    });
    await within(recording, this.storeWaitMs);
  }
}
