import * as assert from 'uvu/assert';
import type { ReceivedRequest } from './webhook-receiver.js';

/** The flow's source port of a flow.completed envelope. */
export function sourcePortOf(envelope: object): number {
  const { payload } = envelope as { payload: { record: { source?: { port: number } } } };
  return payload.record.source?.port ?? -1;
}

/**
 * Every request the receiver took is a signed Standard Webhooks POST: valid signature,
 * fresh timestamp, webhook-id = event_id (a batch: `<first event_id>+<n-1>.<digest>`), and each
 * envelope is a node.event.v1 of this node (source_id = node id).
 */
export function assertWellFormed(requests: readonly ReceivedRequest[], nodeId: string): void {
  for (const r of requests) {
    assert.is(r.method, 'POST');
    assert.is(r.path, '/hook');
    assert.is(r.headers['content-type'], 'application/json');
    assert.ok(r.signatureValid, `signature of ${r.webhookId}`);
    // Signed at send time: never after the receiver got it (1 s granularity).
    assert.ok(r.timestampS * 1000 <= r.at + 1000 && r.timestampS > 1_700_000_000, `webhook-timestamp ${r.timestampS} is a send time in seconds`);
    const parsed = JSON.parse(r.body) as Record<string, unknown> | Record<string, unknown>[];
    const envelopes = Array.isArray(parsed) ? parsed : [parsed];
    const first = String(envelopes[0]!['event_id']);
    if (Array.isArray(parsed)) assert.match(r.webhookId, new RegExp(`^${first}\\+${parsed.length - 1}\\.[0-9a-f]{16}$`));
    else assert.is(r.webhookId, first);
    for (const e of envelopes) {
      assert.is(e['schema_id'], 'node.event.v1');
      assert.is(e['source_id'], nodeId);
    }
  }
}

/** The distinct flow.completed envelopes acknowledged so far, by event_id. */
export function completedById(acknowledged: readonly Record<string, unknown>[]): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const e of acknowledged) if (e['event_type'] === 'flow.completed') out.set(String(e['event_id']), e);
  return out;
}

/** Whether the receiver acknowledged the flow.completed of every curl from these source ports. */
export function deliveredAll(acknowledged: readonly Record<string, unknown>[], ports: readonly number[]): boolean {
  const delivered = new Set([...completedById(acknowledged).values()].map(sourcePortOf));
  return ports.every((p) => delivered.has(p));
}
