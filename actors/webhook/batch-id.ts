import { createHash } from 'node:crypto';

/**
 * The webhook-id of a request: the event_id for one envelope; for a batch,
 * `<first event_id>+<n-1>.<digest>`, where the digest (16 hex digits of SHA-256 over
 * the event_ids, comma-separated) tells apart two batches that start with the same
 * event and have as many entries. Retried entries travel in new batches, so without
 * it one id could name different contents, and a receiver deduplicating on webhook-id
 * as Standard Webhooks intends would drop events it never had.
 */
export function webhookIdOf(eventIds: readonly string[]): string {
  const [first] = eventIds;
  if (eventIds.length === 1) return first!;
  const digest = createHash('sha256').update(eventIds.join(',')).digest('hex').slice(0, 16);
  return `${first}+${eventIds.length - 1}.${digest}`;
}
