/**
 * Names in Redis of a node's outbox. Many nodes share one Redis, so every key carries
 * the node id. BullMQ forbids ':' in queue names and job ids, hence the encoding. The
 * node id in braces is the Redis Cluster hash tag: every key of a node hashes to one
 * slot, so BullMQ's scripts and the node's MULTIs, which touch several, run on a cluster.
 *
 *   weir:{<node>}:outbox               hash: write_blocked_reason (node-wide)
 *   weir:{<node>}:claim                hash: the running node that holds the id (redis-node-claim.ts)
 *   weir:{<node>}:sinks                set: the tags of the node's sink queues, for `weir deliver` and `weir dashboard`
 *   weir:{<node>}:sink:<tag>:<type>    BullMQ's keys of the sink's queue (wait, active, delayed, failed, ...; no completed)
 *   weir:{<node>}:sink:<tag>:ev-<id>   one job per append (up to batch_size events), id from the first event_id,
 *                                      kept KEEP_COMPLETED_S after its delivery (bullmq-jobs.ts)
 *   weir:{<node>}:sink:<tag>:ev-<id>:bodies  string: a large job's envelopes, one per line, until its delivery
 *                                      is counted (bullmq-bodies.ts)
 *   weir:{<node>}:sink:<tag>:state     hash: total_delivered, total_failed, replay_gaps, bytes, pending and dead_letters
 *                                      (events, where BullMQ counts jobs), last_error (JSON), store_id
 *                                      (redis-loss-watch.ts), journal_gaps_moved (journaled-outbox.ts)
 *   weir:{<node>}:sink:<tag>:gaps      list: the most recent missed ranges (JSON), newest last
 *   weir:{<node>}:sink:<tag>:enqueued  zset: job id → append time of each pending job
 *   weir:{<node>}:sink:<tag>:moving    hash: job id → 0 while the outage journal's move adds the job, 1 once a worker
 *                                      settled it; dropped with its journal entries (journaled-outbox.ts)
 */
const enc = (s: string): string => encodeURIComponent(s);

export interface SinkKeys {
  /** BullMQ `prefix` option of the sink's queue. */
  prefix: string;
  queue: string;
  /** `${prefix}:${queue}:`, the start of every key of the queue, job hashes included. */
  base: string;
  state: string;
  gaps: string;
  enqueued: string;
  moving: string;
}

/** The start of every key of a node: its id is the hash tag. */
export function nodeKeyBase(nodeId: string): string {
  return `weir:{${enc(nodeId)}}`;
}

export function sinkKeys(nodeId: string, sink: string): SinkKeys {
  return keysUnder(`${nodeKeyBase(nodeId)}:sink`, sink);
}

/** A sink queue's keys in the layout before the hash tag, which a node drains at start (legacy-queue-drain.ts). */
export function legacySinkKeys(nodeId: string, sink: string): SinkKeys {
  return keysUnder(`weir:${enc(nodeId)}:sink`, sink);
}

function keysUnder(prefix: string, sink: string): SinkKeys {
  const queue = enc(sink);
  const base = `${prefix}:${queue}:`;
  return { prefix, queue, base, state: `${base}state`, gaps: `${base}gaps`, enqueued: `${base}enqueued`, moving: `${base}moving` };
}

/** Where the envelopes of a job are kept beside it (bullmq-bodies.ts). */
export function bodiesKey(keys: SinkKeys, jobId: string): string {
  return `${keys.base}${jobId}:bodies`;
}

export function nodeOutboxKey(nodeId: string): string {
  return `${nodeKeyBase(nodeId)}:outbox`;
}

/** The claim of a node id by one running node (redis-node-claim.ts). */
export function nodeClaimKey(nodeId: string): string {
  return `${nodeKeyBase(nodeId)}:claim`;
}

/** The set of the tags of a node's sink queues (sink-queue-nodes.ts). */
export function nodeSinksKey(nodeId: string): string {
  return `${nodeKeyBase(nodeId)}:sinks`;
}

export const JOB_ID_PREFIX = 'ev-';

/** The job id of the events appended from `eventId` on: the same again adds nothing; it ends with the event's sequence (bullmq-sink-state.ts). */
export function jobIdFor(eventId: string): string {
  return `${JOB_ID_PREFIX}${enc(eventId)}`;
}

/** The job id of dead letters replayed apart from the rest of their job: `stamp` tells replays apart. */
export function replayJobIdFor(eventId: string, stamp: string): string {
  return `${JOB_ID_PREFIX}r${stamp}.${enc(eventId)}`;
}
