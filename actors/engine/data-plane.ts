import type { Logger } from 'pino';
import type { Observable } from 'rxjs';
import type { BusEvent, UdpUpstreamStats } from '../../streams/contract.js';
import type { PublishedEvent } from '../../streams/published-event.js';
import type { WeirConfig } from '../config/schema.js';
import type { Inbound } from '../contracts/inbound.js';
import type { FlowFailureError } from '../errors/flow-failure.js';
import type { ActiveFlows } from '../flows/active-flows.js';
import type { RoutingParts } from './routing-parts.js';

/** One worker process as the node shows it (runtime, `weir status`). */
export interface WorkerView {
  /** Which worker this is: 1, 2, ... in the order they were started; a restarted worker has a new one. */
  id: number;
  pid: number;
  started_at_unix_ms: number;
  active_flows: number;
  /** Flows it started since it started. */
  started_flows: number;
}

/**
 * Where flows run: the inbounds and the table of their flows. LocalPlane runs them in
 * the node's process, WorkerPool in node.workers processes.
 */
export interface DataPlane {
  readonly table: ActiveFlows;
  readonly inbounds: readonly Inbound[];
  /** Opens the inbounds; the flows use the routing state in force then. */
  start(): Promise<void>;
  /** Stops accepting connections; the open flows go on. */
  stopAccepting(): Promise<void>;
  /** After the flows have ended (closeAll): releases what the plane holds. */
  stop(): Promise<void>;
  /** Tells the flows' routers of a new mode, selection or hot config; a no-op where they share the node's. */
  routingChanged(reloaded: boolean): void;
  /** The worker processes, or null when flows run in the node's own process. */
  workers(): WorkerView[] | null;
}

/** What the engine gives the data plane it builds. */
export interface PlaneParts {
  /** The config in force (its hot sections change on reload). */
  config: () => WeirConfig;
  /** The node's router and policies: the flows route with them, or as they say. */
  routing: RoutingParts;
  /** Prefix of the flow ids, unique across engine starts. */
  idPrefix: string;
  /** Period of the counters' check. */
  tickMs: number;
  /** The node's events, as published. */
  events$: Observable<PublishedEvent>;
  udpStats: UdpUpstreamStats;
  publish: (event: BusEvent) => void;
  dialFailed: (selectionChain: readonly string[], failure: FlowFailureError) => void;
  log: Logger;
  now: () => number;
}
