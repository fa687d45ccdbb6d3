import type { BusEvent, RouteMode, UdpUpstreamStats } from '../../streams/contract.js';
import type { FlowChange } from '../../streams/flow-change.js';
import type { CloseRequest } from '../flows/flow-actor.js';
import type { ConfigOrigin } from '../config/config-source.js';
import type { LogFormat } from '../engine/logger.js';

/**
 * The messages between the hub (the node's process) and its workers over the IPC
 * channel node:cluster opens to each (JSON). docs/workers.md tells how they are used.
 */

/** What a worker is started with, in its environment (WEIR_WORKER, JSON). */
/** Where a worker reads the node's config, as the hub's ConfigSource does, and how it logs. */
export interface WorkerSource extends ConfigOrigin {
  logFormat: LogFormat;
}

export interface WorkerInit extends WorkerSource {
  /** Unique for the hub's run: a restarted worker gets a new one. */
  id: number;
  /** The flow ids' prefix: the hub's epoch and this id. */
  idPrefix: string;
  tickMs: number;
}

/** The routing state a worker takes from the hub: the mode and every group's choice. */
export interface RoutingState {
  mode: RouteMode;
  global_target: string | null;
  /** Policy tag to chosen member, selectors and url_test groups alike. */
  selections: Record<string, string>;
  /** Read the config again first (a reload or config.apply changed its hot sections). */
  reload: boolean;
}

/** An event a worker's parts publish, without the serializer only the hub's bus uses. */
export type WorkerEvent = Omit<BusEvent, 'writePayload'>;

export type HubMessage =
  | { t: 'routing'; routing: RoutingState }
  | { t: 'close'; flow_id: string; reason: CloseRequest }
  | { t: 'close_all'; reason: CloseRequest }
  | { t: 'stop_accepting' }
  | { t: 'exit' };

export type WorkerMessage =
  /** Listening for the hub's messages: the first is the routing state, after which the worker listens. */
  | { t: 'ready' }
  | { t: 'listening'; inbounds: { tag: string; host: string; port: number }[] }
  | { t: 'start_failed'; message: string }
  /** What happened since the last batch, in order; `udp` is the worker's UDP counters at its last tick. */
  | { t: 'batch'; changes: FlowChange[]; events: WorkerEvent[]; udp?: UdpUpstreamStats }
  | { t: 'dial_failed'; chain: string[]; code: string; stage: string; message: string };
