import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ofType, readJsonl, warningsOf } from '../support/jsonl.js';
import { codeLines } from '../support/log-lines.js';
import { startOrigin } from '../support/origin.js';
import { startRedisServer } from '../support/redis-server.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { completedById, deliveredAll } from '../support/webhook-expect.js';
import { HOOK_TOKEN, startHookNode, stopAll } from '../support/webhook-node.js';

test('a Redis killed and restarted under a running node is one engine.warning redis_unreachable and one redis_recovered, logged once each, with nothing lost', async () => {
  const redis = await startRedisServer();
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, redisUrl: redis.url, hook: { url: receiver.url() } });
  try {
    const ports = await hn.curlFlows(2);
    await redis.kill9();
    ports.push(...(await hn.curlFlows(6)));
    const [lost] = await waitFor(async () => {
      const found = await warningsOf(hn.events, 'redis_unreachable');
      return found.length > 0 ? found : undefined;
    }, 10_000, 'engine.warning redis_unreachable');
    assert.match(String((lost!['payload'] as Record<string, unknown>)['message']), /^Redis failed sink "hook" \(/);

    await redis.restart();
    // Events go on to the outage journal until its move (tried every second) finds Redis back.
    await waitFor(() => ofType(readJsonl(hn.events), 'engine.warning').some((e) => e.payload['code'] === 'redis_recovered'), 20_000, 'engine.warning redis_recovered');
    ports.push(...(await hn.curlFlows(2)));
    await waitFor(() => deliveredAll(receiver.acknowledged(), ports), 20_000, 'every flow.completed delivered');

    assert.is((await warningsOf(hn.events, 'redis_unreachable')).length, 1, 'one warning for the outage');
    const [back] = await warningsOf(hn.events, 'redis_recovered');
    assert.is((back!['payload'] as Record<string, unknown>)['message'], 'Redis answers again; sinks move their outage journals into their queues');
    assert.is((await warningsOf(hn.events, 'redis_recovered')).length, 1);
    assert.is(codeLines(hn.node.stdout(), 'redis_unreachable').length, 1, 'the outage logged once');
    assert.is(codeLines(hn.node.stdout(), 'redis_recovered').length, 1, 'its end logged once');
    assert.is(completedById(receiver.acknowledged()).size, ports.length);
  } finally {
    await stopAll(hn, receiver, origin, redis);
  }
});

test.run();
