import { Redis } from 'ioredis';
import * as assert from 'uvu/assert';
import { sinkKeys, sinkOfStateKey } from '../../../actors/outbox/bullmq-keys.js';
import { sinkQueueNodes, sinkQueues } from '../../../actors/outbox/sink-queue-nodes.js';
import { redisSuite } from '../../support/redis-server.js';

const { test, server } = redisSuite('sink queues found by SCAN');

// Node ids and tags with the characters that could break a key's parse or a glob.
const QUEUES = [
  { nodeId: 'edge-a', tag: 'hook' },
  { nodeId: 'edge:b', tag: 'hook' },
  { nodeId: 'edge-a', tag: 'a*b' },
  { nodeId: 'x/sink', tag: 'a:b%' },
];

test('every sink state key is found and decoded; keys of other shapes are not', async () => {
  const redis = new Redis((await server).url);
  try {
    for (const q of QUEUES) await redis.hset(sinkKeys(q.nodeId, q.tag).state, 'total_delivered', '0');
    await redis.hset('weir:edge-a:sink:hook:meta', 'version', 'bullmq');
    await redis.rpush(sinkKeys('edge-c', 'hook').gaps, '[]');
    await redis.set('weir:edge-a:presence', '{}');
    await redis.set('weir:edge-a:sink:hook:extra:state', '1');

    assert.equal(await sinkQueues(redis), [
      { nodeId: 'edge-a', tag: 'a*b' },
      { nodeId: 'edge-a', tag: 'hook' },
      { nodeId: 'edge:b', tag: 'hook' },
      { nodeId: 'x/sink', tag: 'a:b%' },
    ]);
    assert.equal(await sinkQueueNodes(redis, 'hook'), ['edge-a', 'edge:b']);
    // A glob character in a tag is matched literally.
    assert.equal(await sinkQueueNodes(redis, 'a*b'), ['edge-a']);
    assert.equal(await sinkQueueNodes(redis, 'a*'), []);
  } finally {
    redis.disconnect();
  }
});

test('sinkOfStateKey refuses other shapes and keeps a part that is not percent-encoding', () => {
  assert.is(sinkOfStateKey('weir:a:sink:b:gaps'), null);
  assert.is(sinkOfStateKey('weir:a:outbox'), null);
  assert.is(sinkOfStateKey('bull:a:sink:b:state'), null);
  assert.equal(sinkOfStateKey('weir:n%zz:sink:t%41:state'), { nodeId: 'n%zz', tag: 'tA' });
});

test.run();
