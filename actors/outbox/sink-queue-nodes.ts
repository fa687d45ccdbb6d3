import type { Redis } from 'ioredis';
import { sinkKeys } from './bullmq-keys.js';

/**
 * The ids of the nodes that keep a queue for sink `tag` on this Redis: each node's
 * outbox writes the sink's `state` hash when it opens it (bullmq-keys.ts names it).
 * Found with SCAN, so a large Redis is never blocked by the search.
 */
export async function sinkQueueNodes(redis: Redis, tag: string): Promise<string[]> {
  const { queue } = sinkKeys('x', tag);
  const pattern = `weir:*:sink:${escapeGlob(queue)}:state`;
  const found = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const encoded = key.slice('weir:'.length, key.length - `:sink:${queue}:state`.length);
      // A key that matched the glob with another sink's name inside is no queue of this one.
      if (key === sinkKeys(safeDecode(encoded), tag).state) found.add(safeDecode(encoded));
    }
  } while (cursor !== '0');
  return [...found].sort();
}

/** Redis glob characters in a queue name are matched literally. */
function escapeGlob(s: string): string {
  return s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
