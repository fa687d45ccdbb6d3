import { verdictForError, verdictForStatus, type DeliveryVerdict } from './delivery-verdict.js';
import { webhookIdOf } from './batch-id.js';
import { webhookHeaders } from './webhook-signature.js';
import { postBytes } from './webhook-request.js';

export interface WebhookTarget {
  url: string;
  /** The revealed sink token; used only to sign, never sent or logged. */
  token: string;
  timeoutMs: number;
}

/**
 * One delivery attempt: POST the body with the Standard Webhooks headers. A batch
 * body is a JSON array of envelopes; webhookIdOf names it. A failed batch's entries
 * are retried on their own schedules (each entry's in the embedded store, each job's in
 * Redis), so receivers dedupe on each envelope's event_id.
 */
export async function postWebhook(
  target: WebhookTarget,
  entries: readonly { id: string; body: string }[],
  now: () => number = Date.now,
): Promise<DeliveryVerdict> {
  if (entries.length === 0) return { kind: 'ack' };
  const body = requestBody(entries);
  const id = webhookIdOf(entries.map((e) => e.id));
  try {
    const answer = await postBytes(target.url, webhookHeaders(target.token, id, body, now()), body, target.timeoutMs);
    return verdictForStatus(answer.status, answer.retryAfter, now());
  } catch (err) {
    return verdictForError(err);
  }
}

/**
 * The UTF-8 request body, encoded once for both the signature and the socket: one
 * envelope as it is, a batch as `[a,b,…]`.
 */
function requestBody(entries: readonly { body: string }[]): Buffer {
  if (entries.length === 1) return Buffer.from(entries[0]!.body);
  let size = entries.length + 1;
  for (const e of entries) size += Buffer.byteLength(e.body);
  const out = Buffer.allocUnsafe(size);
  let at = out.write('[');
  entries.forEach((e, i) => {
    if (i > 0) at += out.write(',', at);
    at += out.write(e.body, at);
  });
  out.write(']', at);
  return out;
}
