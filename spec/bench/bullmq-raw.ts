import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, Worker } from 'bullmq';
import { completedFlows } from './sink-events.js';
import type { DrainedWorker, RawBullmqResult, SinkJob } from './sink-messages.js';

/**
 * Adds `jobs` jobs to the queue with addBulk, `batch` at a time. They carry what an
 * outbox job carries for one event (event_id, sequence, the envelope's JSON) and leave
 * Redis on completion, as the outbox's do.
 */
export async function addEnvelopeJobs(queue: Queue, jobs: number, batch: number): Promise<void> {
  const [event] = completedFlows(1, 'raw');
  const body = JSON.stringify({ ...event, source_id: 'bench' });
  for (let i = 0; i < jobs; i += batch) {
    const ids = Array.from({ length: Math.min(batch, jobs - i) }, (_, k) => i + k);
    await queue.addBulk(
      ids.map((n) => ({
        name: 'envelope',
        data: { event_id: `raw-${n}`, sequence: n, body, replayed_at_unix_ms: null },
        opts: { jobId: `raw-${n}`, removeOnComplete: true },
      })),
    );
  }
}

/**
 * Plain BullMQ on the same Redis, as a ceiling for the Redis outbox: addBulk in batches,
 * one Worker whose processor does nothing.
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
    const start = performance.now();
    await addEnvelopeJobs(queue, job.jobs, job.batch);
    const added = performance.now();
    await Promise.race([done, sleep(job.timeoutMs)]);
    return { completed, addSeconds: (added - start) / 1000, seconds: (performance.now() - start) / 1000 };
  } finally {
    await worker.close(true);
    await queue.close();
  }
}

/** One Worker with a processor that does nothing, taking the queue's jobs until `stop` resolves. */
export async function drainingWorker(job: Extract<SinkJob, { kind: 'bullmq-worker' }>, stop: Promise<void>): Promise<DrainedWorker> {
  const worker = new Worker(job.queue, async () => undefined, { connection: { url: job.redisUrl, maxRetriesPerRequest: null }, concurrency: job.concurrency });
  const drained: DrainedWorker = { completed: 0, firstAt: null, lastAt: null };
  worker.on('completed', () => {
    drained.completed += 1;
    drained.lastAt = Date.now();
    drained.firstAt ??= drained.lastAt;
  });
  try {
    await stop;
    return drained;
  } finally {
    await worker.close(true);
  }
}
