import type { OutboxState } from '../contracts/outbox.js';
import { openNodeDb, openOutboxEnv, openSinkDb, outboxEnvExists, readWriteBlock } from './lmdb-env.js';
import { sinkState } from './lmdb-records.js';

/**
 * A sink's state in the LMDB outbox an earlier version left, not imported yet: opens the state dir's LMDB environment read-only. Null when this state dir has no
 * outbox, or no outbox for that sink. write_blocked is the last one the node recorded.
 */
export async function readLmdbOutboxState(stateDir: string, sink: string): Promise<OutboxState | null> {
  if (!outboxEnvExists(stateDir)) return null;
  const env = openOutboxEnv(stateDir, true);
  try {
    const names = new Set([...env.getKeys()].map(String));
    if (!names.has(`sink:${sink}`)) return null;
    const blocked = names.has('node') ? readWriteBlock(openNodeDb(env)) : null;
    return sinkState(openSinkDb(env, sink), blocked, Date.now());
  } finally {
    await env.close();
  }
}
