import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { warningsOf } from '../support/jsonl.js';
import { startOrigin } from '../support/origin.js';
import { startRedisServer } from '../support/redis-server.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { completedById, deliveredAll, sourcePortOf } from '../support/webhook-expect.js';
import { HOOK_TOKEN, startHookNode, stopAll } from '../support/webhook-node.js';

test('a node started while Redis is down keeps its events in the outage journal and, once Redis is back, delivers them and the backlog Redis kept from its previous run', async () => {
  const redis = await startRedisServer();
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  // The receiver is down: a backlog builds in Redis.
  receiver.respond(() => ({ status: 503 }));
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, redisUrl: redis.url, hook: { url: receiver.url() } });
  try {
    const ports = await hn.curlFlows(3);
    await hn.sinkWhen((s) => s.pending === 3 && s.total_failed >= 3, 'a backlog of three in Redis');
    assert.is(await hn.node.stop(), 0);
    // Redis stops cleanly (its AOF keeps the backlog) and is down when the node starts.
    await redis.stop();
    receiver.respond(() => ({ status: 200 }));
    await hn.restart();
    const [warning] = await warningsOf(hn.events, 'redis_unreachable');
    assert.match(String(warning!.payload['message']), 'sinks keep events in their outage journals until Redis answers');
    // The node's own events of this run are kept in the outage journal: nothing delivers them from there.
    const whileDown = await hn.curlFlows(2);
    await hn.sinkWhen((s) => s.pending === 2 && /outage journal/.test(s.last_error?.message ?? ''), 'the two in the outage journal');
    assert.is(receiver.acknowledged().length, 0, 'nothing delivered while Redis is down');

    await redis.restart();
    ports.push(...whileDown);
    // Without a restart of the node: the journal's move asks Redis every second.
    await waitFor(() => deliveredAll(receiver.acknowledged(), ports), 20_000, 'the backlog Redis kept delivered once it is back');
    const after = await hn.sinkWhen((s) => s.pending === 0 && s.total_delivered === 5, 'nothing pending, and the five counted', { timeoutMs: 15_000 });
    assert.equal([after.replay_gaps, after.dead_letters, after.outbox_storage.store], [0, 0, 'redis']);
    // And new events go to Redis again.
    const later = await hn.curlFlows(2);
    await waitFor(() => deliveredAll(receiver.acknowledged(), later), 10_000, 'the later two delivered');
    assert.equal([...completedById(receiver.acknowledged()).values()].map(sourcePortOf).sort(), [...ports, ...later].sort());
  } finally {
    await stopAll(hn, receiver, origin, redis);
  }
});

test('a Webhook sink of warnings started with the node delivers, once Redis answers, the warning the opening of its own outbox published', async () => {
  const redis = await startRedisServer();
  await redis.stop();
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  const origin = await startOrigin();
  // The sink opens its outbox, that opening publishes redis_unreachable, and only then
  // does the sink take events: the warning reached it only through the replay ring.
  const hn = await startHookNode({ origin, redisUrl: redis.url, hook: { url: receiver.url(), events: ['engine.warning', 'engine.started'] } });
  try {
    const [archived] = await warningsOf(hn.events, 'redis_unreachable');
    await redis.restart();
    await waitFor(() => receiver.acknowledged().some((e) => e['event_id'] === archived!.event_id), 10_000, 'the redis_unreachable warning delivered');
    const started = receiver.acknowledged().find((e) => e['event_type'] === 'engine.started');
    assert.ok(started, 'engine.started delivered');
    assert.ok(archived!.sequence < Number(started['sequence']), 'the warning came before the run’s engine.started');
  } finally {
    await stopAll(hn, receiver, origin, redis);
  }
});

test.run();
