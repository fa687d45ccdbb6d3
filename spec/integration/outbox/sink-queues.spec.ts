import { Redis } from 'ioredis';
import * as assert from 'uvu/assert';
import { sinkKeys } from '../../../actors/outbox/bullmq-keys.js';
import { recordSinkQueue, sinkQueueNodes, sinkQueues } from '../../../actors/outbox/sink-queue-nodes.js';
import { redisSuite } from '../../support/redis-server.js';

const { test, server } = redisSuite('sink queues found by the queue index');

// Node ids and tags with the characters that could break a key: ':', braces (the hash tag), globs.
const QUEUES = [
  { nodeId: 'edge-a', tag: 'hook' },
  { nodeId: 'edge:b', tag: 'hook' },
  { nodeId: 'edge-a', tag: 'a*b' },
  { nodeId: 'x/{sink}', tag: 'a:b%' },
];

test('every recorded queue is found, by sink tag or all; keys alone are not', async () => {
  const redis = new Redis((await server).url);
  try {
    for (const q of QUEUES) await recordSinkQueue(redis, q);
    await recordSinkQueue(redis, QUEUES[0]!);
    // A state hash without a record (as SCAN found queues) is not a queue of the index.
    await redis.hset(sinkKeys('edge-c', 'hook').state, 'total_delivered', '0');

    assert.equal(await sinkQueues(redis), [
      { nodeId: 'edge-a', tag: 'a*b' },
      { nodeId: 'edge-a', tag: 'hook' },
      { nodeId: 'edge:b', tag: 'hook' },
      { nodeId: 'x/{sink}', tag: 'a:b%' },
    ]);
    assert.equal(await sinkQueueNodes(redis, 'hook'), ['edge-a', 'edge:b']);
    assert.equal(await sinkQueueNodes(redis, 'a*'), []);
  } finally {
    redis.disconnect();
  }
});

test('every key of a node carries its id as the hash tag, encoded so a brace in it cannot end the tag', () => {
  assert.is(sinkKeys('edge-a', 'hook').state, 'weir:{edge-a}:sink:hook:state');
  assert.is(sinkKeys('x/{sink}', 'a:b').base, 'weir:{x%2F%7Bsink%7D}:sink:a%3Ab:');
  assert.is(sinkKeys('edge-a', 'hook').prefix, 'weir:{edge-a}:sink');
});

test.run();
