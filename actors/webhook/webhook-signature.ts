import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`,
 * keyed by the sink's token. A `whsec_` token carries a base64 key; any other token
 * is used as raw bytes.
 */
function webhookSignature(token: string, id: string, timestampS: number, body: Buffer): string {
  const key = token.startsWith('whsec_') ? Buffer.from(token.slice('whsec_'.length), 'base64') : Buffer.from(token, 'utf8');
  const mac = createHmac('sha256', key).update(`${id}.${timestampS}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

/** The body is signed as the bytes that are sent. */
export function webhookHeaders(token: string, id: string, body: Buffer, nowMs: number): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': webhookSignature(token, id, timestamp, body),
  };
}
