import type { SinkConfig } from '../config/schema.js';
import type { ConnectorState, Sink } from '../contracts/sink.js';
import type { MissedRanges } from '../sinks/missed-ranges.js';
import { RetriedStart } from './retried-start.js';
import type { SinkChanges } from './sink-changes.js';

export interface SwapContext {
  /** A sink of `config`; `previous` is the state of the sink of its tag it replaces. */
  build(config: SinkConfig, previous?: ConnectorState): Sink;
  /** The bus's last sequence: where an added sink whose start failed takes its events from. */
  lastSequence(): number;
  /** Told of a sink that could not start; it retries (RetriedStart). */
  startFailed(tag: string, err: unknown): void;
  /** What earlier runs left for a tag that never started; its start records them. */
  missed: MissedRanges;
}

export interface SwappedSinks {
  sinks: Sink[];
  /** Events each removed sink still had pending; they stay in its outbox. */
  removedPending: Record<string, number>;
}

/**
 * Stops the sinks that leave and starts the added and replacing ones. A tag's old and
 * new sink never run at once (an embedded outbox has one writer per tag), and the new
 * one starts after the bus sequence the old one took events through: what was
 * published while the old one finished its deliveries is replayed to it from the ring.
 * Tags change side by side, so one slow stop does not hold the others' replay back
 * while the ring moves on. One that cannot start keeps its tag and retries from there.
 */
export async function swapSinks(current: readonly Sink[], changes: SinkChanges, ctx: SwapContext): Promise<SwappedSinks> {
  const leaving = new Map(current.filter((s) => changes.removed.includes(s.tag) || changes.replaced.some((c) => c.tag === s.tag)).map((s) => [s.tag, s]));
  const removedPending: Record<string, number> = {};
  const removing = changes.removed.map(async (tag) => {
    const sink = leaving.get(tag)!;
    await sink.stop();
    removedPending[tag] = sink.state().pending;
  });
  const starting = [...changes.replaced, ...changes.added].map(async (c): Promise<Sink> => {
    const old = leaving.get(c.tag);
    const through = await old?.stop();
    const sink = ctx.build(c, old?.state());
    // Read before the attempt: what is published while it fails is replayed by a retry.
    const since = through ?? ctx.lastSequence();
    try {
      await ctx.missed.start(sink, through);
      return sink;
    } catch (err) {
      ctx.startFailed(c.tag, err);
      return new RetriedStart(sink, since, err, ctx);
    }
  });
  const [started] = await Promise.all([Promise.all(starting), Promise.all(removing)]);
  return { sinks: [...current.filter((s) => !leaving.has(s.tag)), ...started], removedPending };
}
