import { Worker } from 'bullmq';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sinkKeys } from '../../actors/outbox/bullmq-keys.js';
import { E2E_NODE_ID } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startRedisServer } from '../support/redis-server.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { deliveredAll, sourcePortOf } from '../support/webhook-expect.js';
import { HOOK_TOKEN, startHookNode, stopAll } from '../support/webhook-node.js';

// A kill -9 of Redis between moving a job to active (kept by the AOF) and the reply
// leaves the job active under a lock no worker renews: the worker connection sends the
// command again once Redis is back, and the worker takes the answer of that second run.
// That window is too narrow to hit on purpose; a worker of the spec's own that takes a
// job and dies leaves the same state in a running node's queue.
test('a flow.completed left active in Redis with no worker holding it is delivered once its lock lapses, without a restart', async () => {
  const redis = await startRedisServer();
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  // A slow receiver and one delivery at a time: the events behind the first wait in Redis.
  receiver.respond(() => ({ status: 200, delayMs: 2000 }));
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, redisUrl: redis.url, hook: { url: receiver.url(), concurrency: 1, batch_size: 1 } });
  const keys = sinkKeys(E2E_NODE_ID, 'hook');
  const lost = new Worker(keys.queue, null, { connection: { url: redis.url, maxRetriesPerRequest: null }, prefix: keys.prefix, autorun: false, lockDuration: 3000 });
  try {
    const ports = await hn.curlFlows(4);
    await hn.sinkWhen((s) => s.pending === 4, 'four in the Redis outbox');
    await waitFor(() => receiver.inFlight() === 1, 5000, 'one delivery in flight');
    // The move whose reply was lost: a waiting job taken to active by a worker that is gone.
    assert.ok(await lost.getNextJob('reply-lost', { block: false }), 'a waiting job taken to active');
    receiver.respond(() => ({ status: 200 }));
    // Its lock lapses (3 s), then two of the node's stalled-job checks, 15 s apart, hand it
    // on: up to 33 s, longer on a loaded machine, where the bound has room.
    await waitFor(() => deliveredAll(receiver.acknowledged(), ports), 90_000, 'every flow.completed delivered');
    assert.equal(receiver.acknowledged().map(sourcePortOf).sort(), [...ports].sort(), 'each once');
    await hn.sinkWhen((s) => s.pending === 0, 'nothing pending');
  } finally {
    await lost.close(true);
    await stopAll(hn, receiver, origin, redis);
  }
});

test.run();
