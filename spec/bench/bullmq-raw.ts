import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, Worker } from 'bullmq';
import { completedFlows } from './sink-events.js';
import type { RawBullmqResult, SinkJob } from './sink-messages.js';

/**
 * Plain BullMQ on the same Redis, as a ceiling for the Redis outbox: addBulk in batches,
 * one Worker whose processor does nothing. The jobs carry what an outbox job carries
 * (event_id, sequence, the envelope's JSON) and leave Redis on completion, as the
 * outbox's do.
 */
export async function rawBullmq(job: Extract<SinkJob, { kind: 'bullmq' }>): Promise<RawBullmqResult> {
  const connection = { url: job.redisUrl, maxRetriesPerRequest: null };
  const queue = new Queue(job.queue, { connection });
  let completed = 0;
  let allDone: () => void = () => {};
  const done = new Promise<void>((resolve) => (allDone = resolve));
  const worker = new Worker(job.queue, async () => undefined, { connection, concurrency: job.concurrency });
  worker.on('completed', () => {
    completed += 1;
    if (completed === job.jobs) allDone();
  });
  try {
    await Promise.all([queue.waitUntilReady(), worker.waitUntilReady()]);
    const [event] = completedFlows(1, 'raw');
    const body = JSON.stringify({ ...event, source_id: 'bench' });
    const start = performance.now();
    for (let i = 0; i < job.jobs; i += job.batch) {
      const ids = Array.from({ length: Math.min(job.batch, job.jobs - i) }, (_, k) => i + k);
      await queue.addBulk(
        ids.map((n) => ({
          name: 'envelope',
          data: { event_id: `raw-${n}`, sequence: n, body, replayed_at_unix_ms: null },
          opts: { jobId: `raw-${n}`, removeOnComplete: true },
        })),
      );
    }
    const added = performance.now();
    await Promise.race([done, sleep(job.timeoutMs)]);
    return { completed, addSeconds: (added - start) / 1000, seconds: (performance.now() - start) / 1000 };
  } finally {
    await worker.close(true);
    await queue.close();
  }
}
