import type { Redis } from 'ioredis';
import { sinkKeys, sinkOfStateKey } from './bullmq-keys.js';

export interface SinkQueue {
  nodeId: string;
  tag: string;
}

/**
 * The sink queues kept on this Redis, of sink `tag` or of every sink, sorted by node
 * then tag: each node's outbox writes the sink's `state` hash when it opens it
 * (bullmq-keys.ts names it). Found with SCAN, so a large Redis is never blocked by the
 * search.
 */
export async function sinkQueues(redis: Redis, tag?: string): Promise<SinkQueue[]> {
  const pattern = `weir:*:sink:${tag === undefined ? '*' : escapeGlob(sinkKeys('x', tag).queue)}:state`;
  const found = new Map<string, SinkQueue>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const queue = sinkOfStateKey(key);
      // A key that matched the glob with another sink's name inside is no queue of this one.
      if (queue && (tag === undefined || queue.tag === tag)) found.set(key, queue);
    }
  } while (cursor !== '0');
  return [...found.values()].sort((a, b) => byCodeUnits(a.nodeId, b.nodeId) || byCodeUnits(a.tag, b.tag));
}

/** The ids of the nodes that keep a queue for sink `tag` on this Redis. */
export async function sinkQueueNodes(redis: Redis, tag: string): Promise<string[]> {
  return (await sinkQueues(redis, tag)).map((q) => q.nodeId);
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Redis glob characters in a queue name are matched literally. */
function escapeGlob(s: string): string {
  return s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}
