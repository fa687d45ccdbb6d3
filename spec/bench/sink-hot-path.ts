import { setTimeout as sleep } from 'node:timers/promises';
import { OutboxDispatcher } from '../../actors/sinks/outbox-dispatcher.js';
import type { Envelope } from '../../streams/contract.js';
import { completedFlows } from './sink-events.js';
import type { HotPath, SinkJob } from './sink-messages.js';
import { engineFor, publishTimed } from './sink-node.js';

interface EnqueueClock {
  ms(): number;
  events(): number;
}

/**
 * The dispatcher turns each batching window's envelopes into outbox entries (JSON with
 * source_id) and starts the append on the event loop, outside publish. Wrapping its
 * enqueue measures exactly that share of the hot path without touching the node's code.
 */
function clockEnqueue(): EnqueueClock {
  const proto = OutboxDispatcher.prototype as unknown as { enqueue(batch: Envelope[]): void };
  const original = proto.enqueue;
  let ms = 0;
  let events = 0;
  proto.enqueue = function (this: unknown, batch: Envelope[]): void {
    const start = performance.now();
    try {
      original.call(this, batch);
    } finally {
      ms += performance.now() - start;
      events += batch.length;
    }
  };
  return { ms: () => ms, events: () => events };
}

/** The last batching window closes after publish returns; waits (at most timeoutMs) until it went through enqueue. */
async function allEnqueued(clock: EnqueueClock, n: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (clock.events() < n) {
    if (Date.now() > deadline) throw new Error(`${clock.events()} of ${n} events reached the dispatcher in ${timeoutMs} ms`);
    await sleep(10);
  }
}

/**
 * Times publish with no sink subscribed (before start; after an untimed warm-up burst so
 * both sides run optimized code), then with the sink on, plus the dispatcher's enqueue.
 * The backlog is left in the outbox: delivery is measured by the deliver job.
 */
export async function measureHotPath(job: Extract<SinkJob, { kind: 'hot' }>): Promise<HotPath> {
  const engine = engineFor(job.node);
  const clock = clockEnqueue();
  const perEventUs = (ms: number, n: number): number => (ms * 1000) / n;
  await publishTimed(engine.bus, completedFlows(job.events, 'warm'), job.chunk);
  const offMs = await publishTimed(engine.bus, completedFlows(job.events, 'off'), job.chunk);
  const events = completedFlows(job.events, 'on');
  await engine.start();
  try {
    const onMs = await publishTimed(engine.bus, events, job.chunk);
    await allEnqueued(clock, job.events, 30_000);
    return { publishOffUs: perEventUs(offMs, job.events), publishOnUs: perEventUs(onMs, job.events), enqueueUs: perEventUs(clock.ms(), clock.events()) };
  } finally {
    await engine.stop('bench');
  }
}
