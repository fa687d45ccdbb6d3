import type { RedisClient } from '../redis/redis-client.js';
import { FLEET_INDEX, presenceKey, type PresenceRecord } from './presence-record.js';

/** A node of the fleet's index: its presence, or null once that lapsed (`stale`). */
export interface FleetMember {
  node_id: string;
  state: 'up' | 'stale';
  last_seen_unix_ms: number;
  presence: PresenceRecord | null;
}

/** The fleet as Redis holds it, by node id; no node has to be reachable. */
export async function readFleet(redis: RedisClient): Promise<FleetMember[]> {
  const index = await redis.zrange(FLEET_INDEX, 0, -1, 'WITHSCORES');
  const ids: string[] = [];
  const seen: number[] = [];
  for (let i = 0; i < index.length; i += 2) {
    ids.push(index[i]!);
    seen.push(Number(index[i + 1]));
  }
  if (ids.length === 0) return [];
  // One GET per presence, sent together: an MGET would span slots on a cluster.
  const records = await Promise.all(ids.map((id) => redis.get(presenceKey(id))));
  return ids
    .map((node_id, i): FleetMember => {
      const presence = parse(records[i] ?? null);
      return { node_id, state: presence ? 'up' : 'stale', last_seen_unix_ms: seen[i]!, presence };
    })
    .sort((a, b) => a.node_id.localeCompare(b.node_id));
}

function parse(json: string | null): PresenceRecord | null {
  if (json === null) return null;
  try {
    return JSON.parse(json) as PresenceRecord;
  } catch {
    return null;
  }
}
