// Issue 5: events/s from the bus to an acknowledging receiver through each outbox store,
// the hot-path cost of a sink, and raw BullMQ on the same Redis beside them.
import { findBinary } from '../support/find-binary.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import type { Comparison } from './compare.js';
import { startAckReceiver } from './sink-receiver.js';
import { deliver, flushRedis, hot, raw, sinkComparisons, type SinkContext, type Store } from './sink-steps.js';

export interface SinkSettings {
  /** Events per delivery run with batch_size 1 (one event per request). */
  readonly singleEvents: number;
  /** Events per delivery run with batch_size 100 (the sink's default), and jobs per raw BullMQ run. */
  readonly batchedEvents: number;
  /** Events per side of a hot-path run. */
  readonly hotEvents: number;
  /** Deadline of one run. */
  readonly timeoutMs: number;
}

export interface SinkResult {
  readonly comparisons: Comparison[];
  readonly notes: string[];
}

async function startRedis(): Promise<RedisServer> {
  if (!findBinary('redis-server')) throw new Error('redis-server is not installed (apt-get install redis-server)');
  return startRedisServer();
}

function rotate<T>(items: readonly T[], by: number): T[] {
  return items.map((_, i) => items[(i + by) % items.length] as T);
}

/**
 * One acknowledging receiver and one throwaway redis-server (AOF with appendfsync
 * always and noeviction, as a fleet's Redis is set up) serve every run; each run is a
 * node process of its own. Without redis-server only the embedded store runs.
 */
export async function benchSinks(tmp: string, s: SinkSettings, rounds: number): Promise<SinkResult> {
  const notes: string[] = [];
  const receiver = await startAckReceiver();
  const redis = await startRedis().catch((error: unknown) => {
    notes.push(`sinks: redis store and raw BullMQ skipped, ${error instanceof Error ? error.message : String(error)}`);
    console.log(notes.at(-1));
    return null;
  });
  const c: SinkContext = { tmp, receiver, redis, s, out: sinkComparisons() };
  const stores: Store[] = redis ? ['embedded', 'redis'] : ['embedded'];
  const steps: ((round: number) => Promise<string>)[] = [
    ...stores.map((store) => (round: number) => hot(c, store, round)),
    ...stores.flatMap((store) => [1, 100].map((batch) => (round: number) => deliver(c, store, batch, round))),
    ...(redis ? [(round: number) => raw(c, redis, round)] : []),
  ];
  try {
    for (let round = 0; round < rounds; round += 1) {
      const lines: string[] = [];
      // Rotating the order spreads slow drifts of the machine over all runs alike.
      for (const step of rotate(steps, round)) {
        lines.push(
          await step(round).catch((error: unknown) => {
            const message = `failed: ${error instanceof Error ? error.message : String(error)}`;
            notes.push(`sinks round ${round + 1}: ${message}`);
            return message;
          }),
        );
        if (redis) await flushRedis(redis).catch((error: unknown) => notes.push(`sinks round ${round + 1}: FLUSHALL failed: ${String(error)}`));
      }
      console.log(`sinks round ${round + 1}/${rounds}:\n  ${lines.join('\n  ')}`);
    }
  } finally {
    await receiver.close();
    await redis?.close();
  }
  return { comparisons: Object.values(c.out), notes };
}
