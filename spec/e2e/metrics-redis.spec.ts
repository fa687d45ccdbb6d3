import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WAIT_MS } from '../support/far-bound.js';
import { scrapeChecked } from '../support/metrics-scrape.js';
import { startOrigin } from '../support/origin.js';
import { startRedisServer } from '../support/redis-server.js';
import { waitFor } from '../support/wait-for.js';
import { deliveredAll } from '../support/webhook-expect.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { HOOK_TOKEN, startHookNode, stopAll } from '../support/webhook-node.js';

// A real node whose Webhook sink keeps its outbox on a real redis-server, scraped on
// the open metrics listener while the test stops and restarts that Redis.

test('weir_redis_up follows Redis down and back, and the BullMQ deliveries are measured like the embedded ones', async () => {
  const redis = await startRedisServer();
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, redisUrl: redis.url, hook: { url: receiver.url() }, control: { metrics_listen: '127.0.0.1:0' } });
  // Read at each scrape, inside the try: a node that never logs its metrics listener is still stopped.
  const scrape = async (): Promise<Map<string, number>> => scrapeChecked(`${await hn.metricsUrl()}/metrics`);
  const redisUp = async (value: number, what: string): Promise<Map<string, number>> =>
    waitFor(async () => {
      const scraped = await scrape();
      return scraped.get('weir_redis_up') === value ? scraped : undefined;
    }, WAIT_MS, what);
  try {
    const up = await redisUp(1, 'Redis up');
    assert.is(up.get('weir_sink_outbox_info{sink="hook",type="webhook",store="redis"}'), 1);

    const ports = await hn.curlFlows(4);
    await waitFor(() => deliveredAll(receiver.acknowledged(), ports), WAIT_MS, 'the flow.completed delivered through Redis');
    const acknowledged = (): number => receiver.acknowledged().filter((e) => e['event_type'] === 'flow.completed').length;
    await waitFor(async () => (await scrape()).get('weir_sink_delivery_latency_seconds_count{sink="hook"}') === acknowledged(), WAIT_MS, 'one observation per acknowledged event');

    // No traffic while it is down: the state read of a scrape finds the outage.
    await redis.stop();
    const down = await redisUp(0, 'Redis down');
    assert.is(down.get('weir_sink_outbox_info{sink="hook",type="webhook",store="redis"}'), 1);

    await redis.restart();
    await redisUp(1, 'Redis back');
    const after = await hn.curlFlows(2);
    await waitFor(() => deliveredAll(receiver.acknowledged(), after), WAIT_MS, 'the flow.completed after the outage delivered');
    await waitFor(async () => (await scrape()).get('weir_sink_delivery_latency_seconds_count{sink="hook"}') === acknowledged(), WAIT_MS, 'one observation per acknowledged event, after the outage too');
  } finally {
    await stopAll(hn, receiver, origin, redis);
  }
});

test.run();
