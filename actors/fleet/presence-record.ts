import { nodeKeyBase } from '../outbox/bullmq-keys.js';

/**
 * What a node on Redis says of itself to the fleet (`weir fleet`), refreshed every few
 * seconds under a key that lapses when the refreshes stop:
 *
 *   weir:{<node>}:presence  string: the PresenceRecord as JSON, TTL PRESENCE_TTL_MS
 *   weir:fleet              zset: node id → when its presence was last written (ms);
 *                           the fleet's index, so listing it needs no SCAN; on a
 *                           cluster it lives in another slot than the presences, so
 *                           it is never written in one command or MULTI with them
 */
export interface PresenceRecord {
  node_id: string;
  version: string;
  build: string;
  host: string;
  pid: number;
  started_at_unix_ms: number;
  updated_at_unix_ms: number;
  /** The address the control plane listens on, host:port (the bound port when the config says 0). */
  control: string | null;
  mode: string;
  active_flows: number;
  /** Flows opened since the previous refresh, and how long that was. */
  flows_opened: number;
  interval_ms: number;
  bytes_up: number;
  bytes_down: number;
  sinks: { tag: string; type: string; pending: number; oldest_pending_age_ms: number | null; total_delivered: number; dead_letters: number }[];
}

/** How often a node writes its presence. */
export const PRESENCE_EVERY_MS = 10_000;
/** How long a presence stands without a refresh: three refreshes. */
export const PRESENCE_TTL_MS = 30_000;
/** Index entries older than this are dropped by the writers: a node gone for good leaves the list. */
export const FLEET_FORGET_MS = 24 * 3600_000;

export const FLEET_INDEX = 'weir:fleet';

export function presenceKey(nodeId: string): string {
  return `${nodeKeyBase(nodeId)}:presence`;
}
