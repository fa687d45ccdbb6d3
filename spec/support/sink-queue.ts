import { Queue } from 'bullmq';
import type { JobData } from '../../actors/outbox/bullmq-jobs.js';
import type { SinkKeys } from '../../actors/outbox/bullmq-keys.js';

/** A BullMQ Queue on a sink's queue, under the names the node gives it (bullmq-keys.ts), for a spec to look into; close it after. */
export function sinkQueue<T = JobData>(url: string, keys: SinkKeys): Queue<T> {
  return new Queue<T>(keys.queue, { connection: { url }, prefix: keys.prefix });
}
