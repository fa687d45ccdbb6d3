import type { WeirConfig } from '../config/schema.js';
import type { OutboxState } from '../contracts/outbox.js';
import { mergeStates } from './merge-states.js';
import { readOutboxState } from './read-outbox-state.js';

/**
 * A Webhook sink's state read straight from its outbox, with no node running: the
 * embedded store in the state dir, plus Redis when configured and reachable. Null
 * when neither holds anything of the sink.
 */
export async function readSinkOutboxState(config: WeirConfig, sink: string): Promise<OutboxState | null> {
  const embedded = await readOutboxState(config.node.state_dir, sink);
  if (!config.redis) return embedded;
  const { readRedisOutboxState } = await import('./read-bullmq-outbox-state.js');
  const redis = await readRedisOutboxState(config.redis.url.reveal(), config.node.id, sink).catch(() => null);
  if (!redis) return embedded;
  if (!embedded) return redis;
  // Offline nothing says whether writes go to the embedded store: only Redis's block shows.
  return mergeStates(redis, embedded, { spillTakesWrites: false });
}
