import type { EntrySettlement, OutboxEntry } from '../../../actors/contracts/outbox.js';
import { BullmqDelivery } from '../../../actors/outbox/bullmq-delivery.js';
import type { SinkKeys } from '../../../actors/outbox/bullmq-keys.js';
import { waitFor } from '../../support/wait-for.js';
import { sinkQueue } from '../../support/sink-queue.js';

/**
 * Drains a sink's Redis queue with a BullMQ worker, as the node or `weir deliver` does:
 * resolves with the entries in the order the worker handed them out, once none is
 * waiting or active (entries retried for later stay delayed).
 */
export async function bullmqDrain(url: string, keys: SinkKeys, settle: (entry: OutboxEntry) => EntrySettlement): Promise<OutboxEntry[]> {
  const seen: OutboxEntry[] = [];
  const queue = sinkQueue(url, keys);
  const delivery = new BullmqDelivery({
    url,
    keys,
    concurrency: 1,
    // Jobs a dead worker held come back within a second of their lock lapsing.
    stalledCheckMs: 500,
    // A job's entries are settled together: by the first settlement that is not an ack.
    deliver: async (entries) => {
      seen.push(...entries);
      const settled = entries.map(settle);
      return settled.find((s) => s.kind !== 'ack') ?? settled[0]!;
    },
  });
  try {
    await delivery.ready();
    await waitFor(async () => {
      const c = await queue.getJobCounts('wait', 'active', 'prioritized');
      return c['wait']! + c['active']! + c['prioritized']! === 0;
    }, 10_000, 'the queue drained');
    return seen;
  } finally {
    await delivery.close();
    await queue.close();
  }
}
