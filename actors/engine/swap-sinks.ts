import type { SinkConfig } from '../config/schema.js';
import type { Sink } from '../contracts/sink.js';
import { RetriedStart } from './retried-start.js';
import type { SinkChanges } from './sink-changes.js';

export interface SwapContext {
  build(config: SinkConfig): Sink;
  /** The bus's last sequence: where an added sink whose start failed takes its events from. */
  lastSequence(): number;
  /** Told of a sink that could not start; it retries (RetriedStart). */
  startFailed(tag: string, err: unknown): void;
}

export interface SwappedSinks {
  sinks: Sink[];
  /** Events each removed sink still had pending; they stay in its outbox. */
  removedPending: Record<string, number>;
}

/**
 * Stops the sinks that leave, then starts the added and replacing ones. A tag's old
 * and new sink never run at once (an embedded outbox has one writer per tag), and the
 * new one starts after the bus sequence the old one took events through: what was
 * published while the old one finished its deliveries is replayed to it from the ring.
 * One that cannot start keeps its tag and retries from there.
 */
export async function swapSinks(current: readonly Sink[], changes: SinkChanges, ctx: SwapContext): Promise<SwappedSinks> {
  const removed = new Set(changes.removed);
  const leaving = new Set([...removed, ...changes.replaced.map((c) => c.tag)]);
  const removedPending: Record<string, number> = {};
  const takenThrough = new Map<string, number>();
  for (const sink of current.filter((s) => leaving.has(s.tag))) {
    takenThrough.set(sink.tag, await sink.stop());
    if (removed.has(sink.tag)) removedPending[sink.tag] = sink.state().pending;
  }
  const started: Sink[] = [];
  for (const c of [...changes.replaced, ...changes.added]) {
    const sink = ctx.build(c);
    const through = takenThrough.get(c.tag);
    // Read before the attempt: what is published while it fails is replayed by a retry.
    const since = through ?? ctx.lastSequence();
    try {
      await sink.start(through);
      started.push(sink);
    } catch (err) {
      ctx.startFailed(c.tag, err);
      started.push(new RetriedStart(sink, since, err));
    }
  }
  return { sinks: [...current.filter((s) => !leaving.has(s.tag)), ...started], removedPending };
}
