import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WAIT_MS } from '../support/far-bound.js';
import { scrapeChecked } from '../support/metrics-scrape.js';
import { startOrigin } from '../support/origin.js';
import { waitFor } from '../support/wait-for.js';
import { deliveredAll } from '../support/webhook-expect.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { HOOK_TOKEN, startHookNode, stopAll } from '../support/webhook-node.js';

// A real node with a Webhook sink on the embedded outbox, real traffic and a real
// receiver, scraped on the open metrics listener (control.metrics_listen).

type Occurred = { occurred_at_unix_ms: number };

/** How long the receiver holds each answer: every latency is at least that. */
const ANSWER_DELAY_MS = 300;

test('the delivery latency histogram counts each acknowledged event once, from its occurred_at to the answer', async () => {
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  receiver.respond(() => ({ status: 200, delayMs: ANSWER_DELAY_MS }));
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, hook: { url: receiver.url(), batch_size: 4 }, control: { metrics_listen: '127.0.0.1:0' } });
  try {
    const open = `${await hn.metricsUrl()}/metrics`;
    const ports = await hn.curlFlows(10);
    await waitFor(() => deliveredAll(receiver.acknowledged(), ports), WAIT_MS, 'every flow.completed acknowledged');
    const acknowledged = receiver.acknowledged().filter((e) => e['event_type'] === 'flow.completed');
    const settled = await waitFor(
      async () => {
        const scraped = await scrapeChecked(open);
        return scraped.get('weir_sink_delivery_latency_seconds_count{sink="hook"}') === acknowledged.length ? scraped : undefined;
      },
      WAIT_MS,
      'one observation per acknowledged event',
    );
    assert.is(settled.get('weir_sink_delivery_latency_seconds_bucket{le="+Inf",sink="hook"}'), acknowledged.length);
    // Each answer came ANSWER_DELAY_MS after its request arrived, and the request after the event occurred.
    assert.is(settled.get('weir_sink_delivery_latency_seconds_bucket{le="0.25",sink="hook"}'), 0);
    const arrivals = receiver.requests().filter((r) => r.status === 200);
    const floorMs = arrivals
      .flatMap((r) => [JSON.parse(r.body) as Occurred | Occurred[]].flat().map((e) => r.at - e.occurred_at_unix_ms + ANSWER_DELAY_MS))
      .reduce((n, ms) => n + ms, 0);
    assert.ok(settled.get('weir_sink_delivery_latency_seconds_sum{sink="hook"}')! >= floorMs / 1000, `sum ${settled.get('weir_sink_delivery_latency_seconds_sum{sink="hook"}')} >= ${floorMs / 1000}`);
    // The JSONL archive is no Webhook: nothing is acknowledged there.
    assert.not.ok([...settled.keys()].some((k) => k.startsWith('weir_sink_delivery_latency_seconds_count{sink="archive"')));

    // Outbox state as GET /api/v1/sinks shows it, and no Redis series without Redis.
    const sink = await hn.sinkWhen((s) => s.pending === 0 && s.total_delivered === acknowledged.length, 'nothing pending');
    const outbox = await scrapeChecked(open);
    assert.is(sink.outbox_storage.store, 'embedded');
    assert.is(outbox.get('weir_sink_outbox_info{sink="hook",type="webhook",store="embedded"}'), 1);
    assert.is(outbox.get('weir_sink_outbox_write_blocked{sink="hook",type="webhook"}'), 0);
    assert.is(outbox.get('weir_sink_outbox_write_blocked{sink="archive",type="jsonl"}'), 0);
    assert.is(outbox.get('weir_sink_outbox_bytes{sink="hook",type="webhook"}'), sink.outbox_storage.bytes);
    assert.is(outbox.get('weir_sink_delivered_events_total{sink="hook",type="webhook"}'), sink.total_delivered);
    assert.is(outbox.get('weir_redis_up'), undefined);
  } finally {
    await stopAll(hn, receiver, origin);
  }
});

test('the metrics listener answers GET /metrics without the key and nothing else; the control plane still wants the key', async () => {
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, hook: null, control: { metrics_listen: '127.0.0.1:0' } });
  try {
    const metricsUrl = await hn.metricsUrl();
    const at = (path: string, init: RequestInit = {}): Promise<Response> => fetch(`${metricsUrl}${path}`, { ...init, signal: AbortSignal.timeout(10_000) });
    await hn.curlFlow();
    const open = await scrapeChecked(`${metricsUrl}/metrics?x=1`);
    assert.ok((open.get('weir_flows_started_total') ?? 0) >= 1);
    const keyed = await scrapeChecked(`${hn.controlUrl}/metrics`, hn.apiKey);
    assert.is(keyed.get('weir_flows_started_total'), open.get('weir_flows_started_total'));

    const refused = await fetch(`${hn.controlUrl}/metrics`);
    assert.is(refused.status, 401);
    assert.is(((await refused.json()) as { code: string }).code, 'UNAUTHORIZED');
    for (const [path, init] of [['/api/v1/sinks', {}], ['/api/v1/health', {}], ['/', {}], ['/metrics', { method: 'POST', body: '{}' }]] as const) {
      const res = await at(path, init);
      assert.is(res.status, 404, `${init.method ?? 'GET'} ${path}`);
      assert.is(((await res.json()) as { code: string }).code, 'NOT_FOUND');
    }
    const head = await at('/metrics', { method: 'HEAD' });
    assert.is(head.status, 200);
    assert.is(await head.text(), '');
  } finally {
    await hn.node.stop();
    await origin.close();
  }
});

test.run();
