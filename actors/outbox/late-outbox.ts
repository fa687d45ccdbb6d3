import type { DeadLetter, OutboxAppend, OutboxState, ReplayGap } from '../contracts/outbox.js';
import { OutboxUnavailable } from './outbox-errors.js';
import type { EvacuableOutbox } from './spill-outbox.js';

/** Least time between two attempts to open the Redis outbox. */
const REOPEN_MS = 5000;

/**
 * A sink's Redis outbox that did not open in time (Redis down or hung when the sink was
 * added or replaced). Until it opens, every call fails with OutboxUnavailable, which
 * SpillOutbox answers from the embedded store, and asks for the open again; once
 * Redis answers it is the Redis outbox, and the sink's Redis backlog is delivered and
 * counted again, without waiting for the next start of the node.
 */
export class LateOutbox implements EvacuableOutbox {
  private current: EvacuableOutbox | null = null;
  private opening: Promise<unknown> | null = null;
  private closed = false;
  private lastAttempt = Date.now();
  /** onAppend listeners, with how to detach each from the Redis outbox once it is open. */
  private readonly listeners = new Map<() => void, (() => void) | null>();

  constructor(
    readonly sink: string,
    private readonly open: () => Promise<EvacuableOutbox>,
    /** The open already under way, whose answer came too late. */
    first: Promise<EvacuableOutbox>,
  ) {
    this.follow(first);
  }

  append(entries: readonly OutboxAppend[]): Promise<void> {
    return this.call((o) => o.append(entries));
  }

  onAppend(listener: () => void): () => void {
    this.listeners.set(listener, this.current?.onAppend(listener) ?? null);
    return () => {
      this.listeners.get(listener)?.();
      this.listeners.delete(listener);
    };
  }

  claimCounts(ids: readonly string[]): Promise<boolean[]> {
    return this.call((o) => o.claimCounts(ids));
  }

  listDeadLetters(limit: number): Promise<DeadLetter[]> {
    return this.call((o) => o.listDeadLetters(limit));
  }

  replayDeadLetters(ids?: readonly string[]): Promise<number> {
    return this.call((o) => o.replayDeadLetters(ids));
  }

  recordGap(gap: ReplayGap, continuesLast: boolean): Promise<void> {
    return this.call((o) => o.recordGap(gap, continuesLast));
  }

  state(): Promise<OutboxState> {
    return this.call((o) => o.state());
  }

  evacuate(max: number, into: (entries: OutboxAppend[]) => Promise<void>): Promise<number> {
    return this.call((o) => o.evacuate(max, into));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.current?.close();
  }

  private call<T>(op: (outbox: EvacuableOutbox) => Promise<T>): Promise<T> {
    if (this.current) return op(this.current);
    if (!this.opening && !this.closed && Date.now() - this.lastAttempt >= REOPEN_MS) {
      this.lastAttempt = Date.now();
      this.follow(this.open());
    }
    return Promise.reject(new OutboxUnavailable(`Redis did not answer when sink "${this.sink}" opened; it is asked again`));
  }

  private follow(open: Promise<EvacuableOutbox>): void {
    this.opening = open.then(
      async (outbox) => {
        if (this.closed) return outbox.close();
        this.current = outbox;
        for (const listener of this.listeners.keys()) this.listeners.set(listener, outbox.onAppend(listener));
      },
      () => (this.opening = null),
    );
  }
}
