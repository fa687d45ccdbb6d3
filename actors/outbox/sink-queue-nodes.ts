import type { RedisClient } from '../redis/redis-client.js';
import { nodeSinksKey } from './bullmq-keys.js';

export interface SinkQueue {
  nodeId: string;
  tag: string;
}

/**
 * The set of the ids of the nodes that keep sink queues on this Redis. Unlike the
 * fleet's index, a node that stops stays in it: its queue may still hold jobs for
 * `weir deliver`. It lives in another slot than the nodes' keys, so it is written
 * apart from them.
 */
export const QUEUE_INDEX = 'weir:queues';

/**
 * Records the queue of sink `tag` of a node, where `sinkQueues` finds it: the node's
 * outbox does it when it opens the sink. Two commands, each in one slot.
 */
export async function recordSinkQueue(redis: RedisClient, queue: SinkQueue): Promise<void> {
  await Promise.all([redis.sadd(QUEUE_INDEX, queue.nodeId), redis.sadd(nodeSinksKey(queue.nodeId), queue.tag)]);
}

/**
 * The sink queues kept on this Redis, of sink `tag` or of every sink, sorted by node
 * then tag: read from the queue index and each node's set of sinks, never by SCAN,
 * which on a cluster sees one shard only.
 */
export async function sinkQueues(redis: RedisClient, tag?: string): Promise<SinkQueue[]> {
  const nodes = await redis.smembers(QUEUE_INDEX);
  const tags = await Promise.all(nodes.map((nodeId) => redis.smembers(nodeSinksKey(nodeId))));
  return nodes
    .flatMap((nodeId, i) => tags[i]!.filter((t) => tag === undefined || t === tag).map((t) => ({ nodeId, tag: t })))
    .sort((a, b) => byCodeUnits(a.nodeId, b.nodeId) || byCodeUnits(a.tag, b.tag));
}

/** The ids of the nodes that keep a queue for sink `tag` on this Redis. */
export async function sinkQueueNodes(redis: RedisClient, tag: string): Promise<string[]> {
  return (await sinkQueues(redis, tag)).map((q) => q.nodeId);
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
