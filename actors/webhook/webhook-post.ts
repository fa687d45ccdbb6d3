import { verdictForError, verdictForStatus, type DeliveryVerdict } from './delivery-verdict.js';
import { webhookIdOf } from './batch-id.js';
import { webhookHeaders } from './webhook-signature.js';

export interface WebhookTarget {
  url: string;
  /** The revealed sink token; used only to sign, never sent or logged. */
  token: string;
  timeoutMs: number;
}

/**
 * One delivery attempt: POST the body with the Standard Webhooks headers. A batch
 * body is a JSON array of envelopes; webhookIdOf names it. A failed batch's entries
 * are retried one by one on their own schedule, so receivers dedupe on each
 * envelope's event_id.
 */
export async function postWebhook(
  target: WebhookTarget,
  entries: readonly { id: string; body: string }[],
  now: () => number = Date.now,
): Promise<DeliveryVerdict> {
  const first = entries[0];
  if (!first) return { kind: 'ack' };
  const single = entries.length === 1;
  const body = single ? first.body : `[${entries.map((e) => e.body).join(',')}]`;
  const id = webhookIdOf(entries.map((e) => e.id));
  try {
    const res = await fetch(target.url, {
      method: 'POST',
      headers: webhookHeaders(target.token, id, body, now()),
      body,
      signal: AbortSignal.timeout(target.timeoutMs),
      redirect: 'manual',
    });
    // Drain the body so the connection can be reused.
    await res.arrayBuffer().catch(() => undefined);
    return verdictForStatus(res.status, res.headers.get('retry-after'), now());
  } catch (err) {
    return verdictForError(err);
  }
}
