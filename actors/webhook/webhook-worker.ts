import type { RedisAddress } from '../redis/redis-client.js';
import type { WebhookSinkConfig } from '../config/schema.js';
import type { EntrySettlement, OutboxAppend, OutboxEntry } from '../contracts/outbox.js';
import { BullmqDelivery } from '../outbox/bullmq-delivery.js';
import type { SinkKeys } from '../outbox/bullmq-keys.js';
import type { DeliveryTrouble } from './delivery-trouble.js';
import { settleFailure, type DeliveryVerdict } from './delivery-verdict.js';
import { RequestBatcher } from './request-batcher.js';
import { postWebhook } from './webhook-post.js';

/**
 * A BullMQ worker that delivers one Redis sink queue to the sink's Webhook: the jobs it
 * holds at once are grouped into requests (RequestBatcher), each request's verdict
 * settles every job it carried. Used by the node (`delivery: "node"`) and by
 * `weir deliver`; `trouble` is told of each request's verdict, `acked` of the entries
 * of each request the receiver acknowledged.
 */
export function startWebhookWorker(
  config: WebhookSinkConfig,
  redis: { url: RedisAddress; keys: SinkKeys; onError: (err: Error) => void },
  trouble: DeliveryTrouble,
  acked?: (entries: readonly OutboxAppend[]) => void,
): BullmqDelivery {
  const target = { url: config.url, token: config.token.reveal(), timeoutMs: config.timeout_ms };
  const policy = { retryForS: config.retry_for_s, backoff: { baseMs: config.backoff_base_ms, capMs: config.backoff_max_ms } };
  const post = async (entries: OutboxEntry[]): Promise<DeliveryVerdict> => {
    const verdict = await postWebhook(target, entries);
    trouble.observe(verdict);
    if (verdict.kind === 'ack') acked?.(entries);
    return verdict;
  };
  const batcher = new RequestBatcher(post, {
    batchSize: config.batch_size,
    concurrency: config.concurrency,
  });
  return new BullmqDelivery({
    url: redis.url,
    keys: redis.keys,
    concurrency: config.batch_size * config.concurrency,
    onError: redis.onError,
    // A job's entries share their append time, attempts and replay: the first settles all.
    deliver: async (entries): Promise<EntrySettlement> => {
      const verdict = await batcher.add(entries);
      return verdict.kind === 'ack' ? verdict : settleFailure(verdict, entries[0]!, policy, Date.now());
    },
  });
}
