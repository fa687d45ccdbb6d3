/**
 * Names in Redis of a node's outbox. Many nodes share one Redis, so every key carries
 * the node id. BullMQ forbids ':' in queue names and job ids, hence the encoding.
 *
 *   weir:<node>:outbox                 hash: write_blocked_reason (node-wide)
 *   weir:<node>:claim                  hash: the running node that holds the id (redis-node-claim.ts)
 *   weir:<node>:sink:<tag>:<type>      BullMQ's keys of the sink's queue (wait, active,
 *                                      delayed, failed, ...; completed jobs are removed)
 *   weir:<node>:sink:<tag>:ev-<id>     one job per append (up to batch_size events), job
 *                                      id from the first event_id; kept KEEP_COMPLETED_S
 *                                      after its delivery (bullmq-jobs.ts)
 *   weir:<node>:sink:<tag>:state       hash: total_delivered, total_failed, replay_gaps,
 *                                      bytes, pending and dead_letters (events, where
 *                                      BullMQ counts jobs), last_error (JSON), store_id
 *                                      (redis-loss-watch.ts), journal_gaps_moved
 *                                      (journaled-outbox.ts)
 *   weir:<node>:sink:<tag>:gaps        list: the most recent missed ranges (JSON), newest last
 *   weir:<node>:sink:<tag>:enqueued    zset: job id → append time of each pending job
 */
const enc = (s: string): string => encodeURIComponent(s);

export interface SinkKeys {
  /** BullMQ `prefix` option of the sink's queue. */
  prefix: string;
  /** BullMQ queue name. */
  queue: string;
  /** `${prefix}:${queue}:`, the start of every key of the queue, job hashes included. */
  base: string;
  state: string;
  gaps: string;
  enqueued: string;
}

export function sinkKeys(nodeId: string, sink: string): SinkKeys {
  const prefix = `weir:${enc(nodeId)}:sink`;
  const queue = enc(sink);
  const base = `${prefix}:${queue}:`;
  return { prefix, queue, base, state: `${base}state`, gaps: `${base}gaps`, enqueued: `${base}enqueued` };
}

/**
 * The node and sink of a sink's `state` key, or null for a key of another shape. A
 * part that is not valid percent-encoding is kept as it is.
 */
export function sinkOfStateKey(key: string): { nodeId: string; tag: string } | null {
  const parts = key.split(':');
  if (parts.length !== 5 || parts[0] !== 'weir' || parts[2] !== 'sink' || parts[4] !== 'state') return null;
  return { nodeId: safeDecode(parts[1]!), tag: safeDecode(parts[3]!) };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function nodeOutboxKey(nodeId: string): string {
  return `weir:${enc(nodeId)}:outbox`;
}

/** The claim of a node id by one running node (redis-node-claim.ts). */
export function nodeClaimKey(nodeId: string): string {
  return `weir:${enc(nodeId)}:claim`;
}

export const JOB_ID_PREFIX = 'ev-';

/**
 * The job id of the events appended from `eventId` on: deterministic, so adding them
 * again while they are queued adds nothing. It ends with the first event's sequence
 * (event ids end with it), which bullmq-sink-state.ts reads.
 */
export function jobIdFor(eventId: string): string {
  return `${JOB_ID_PREFIX}${enc(eventId)}`;
}

/** The job id of dead letters replayed apart from the rest of their job: `stamp` tells replays apart. */
export function replayJobIdFor(eventId: string, stamp: string): string {
  return `${JOB_ID_PREFIX}r${stamp}.${enc(eventId)}`;
}
