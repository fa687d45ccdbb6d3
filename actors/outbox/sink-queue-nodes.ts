import type { RedisClient } from '../redis/redis-client.js';
import { nodeSinksKey } from './bullmq-keys.js';

export interface SinkQueue {
  nodeId: string;
  tag: string;
}

/**
 * The ids of the nodes that keep sink queues on this Redis. Unlike the fleet's index, a
 * stopped node stays: its queue may still hold jobs for `weir deliver`.
 */
export const QUEUE_INDEX = 'weir:queues';

/** Records a node's sink queue when its outbox opens the sink: two commands, as the index is in another slot than the node's keys. */
export async function recordSinkQueue(redis: RedisClient, queue: SinkQueue): Promise<void> {
  await Promise.all([redis.sadd(QUEUE_INDEX, queue.nodeId), redis.sadd(nodeSinksKey(queue.nodeId), queue.tag)]);
}

/** The sink queues on this Redis (of sink `tag`, or all) by node then tag: from the index, never by SCAN, which sees one shard of a cluster. */
export async function sinkQueues(redis: RedisClient, tag?: string): Promise<SinkQueue[]> {
  const nodes = await redis.smembers(QUEUE_INDEX);
  const tags = await Promise.all(nodes.map((nodeId) => redis.smembers(nodeSinksKey(nodeId))));
  return nodes
    .flatMap((nodeId, i) => tags[i]!.filter((t) => tag === undefined || t === tag).map((t) => ({ nodeId, tag: t })))
    .sort((a, b) => byCodeUnits(a.nodeId, b.nodeId) || byCodeUnits(a.tag, b.tag));
}

export async function sinkQueueNodes(redis: RedisClient, tag: string): Promise<string[]> {
  return (await sinkQueues(redis, tag)).map((q) => q.nodeId);
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
