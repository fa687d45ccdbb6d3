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
 * are retried on their own schedules (each entry's in the embedded store, each job's in
 * Redis), so receivers dedupe on each envelope's event_id.
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
    void drainAnswer(res.body);
    return verdictForStatus(res.status, res.headers.get('retry-after'), now());
  } catch (err) {
    return verdictForError(err);
  }
}

/** Bytes of an answer's body read and dropped so that its connection can be reused; past them it is cut. */
const DRAINED_MAX = 64 * 1024;

/**
 * Reads an answer's body into nothing, in the background: the verdict is the status
 * alone. Bounded, so that a receiver's endless body cannot grow the node, nor a
 * trickled one hold the delivery until its timeout fails it.
 */
async function drainAnswer(body: ReadableStream<Uint8Array> | null): Promise<void> {
  if (!body) return;
  const reader = body.getReader();
  try {
    for (let read = 0; read <= DRAINED_MAX; ) {
      const chunk = await reader.read();
      if (chunk.done) return;
      read += chunk.value.byteLength;
    }
    await reader.cancel();
  } catch {
    // A body cut by the timeout or the receiver changes nothing: the status was the answer.
  }
}
