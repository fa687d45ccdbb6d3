import type { Observable } from 'rxjs';
import type { FlowRecord } from '../../streams/contract.js';
import type { FlowChange } from '../../streams/flow-change.js';
import type { CloseRequest } from './flow-actor.js';

/**
 * The node's one table of active flows as the engine and the control plane read it:
 * the flow table itself in a single process, the hub's view of its workers' flows
 * with node.workers above 1 (docs/workers.md).
 */
export interface ActiveFlows {
  /** Every flow's changes, in the order the node learns them; a completed flow has left the table first. */
  readonly changes$: Observable<FlowChange>;
  readonly size: number;
  records(): IterableIterator<FlowRecord>;
  /** In opening order, each with an opening number that only grows (pageAfter). */
  openedRecords(): IterableIterator<[number, FlowRecord]>;
  activeRecords(): FlowRecord[];
  get(flowId: string): { readonly record: FlowRecord } | undefined;
  /** The 1 s check of the counters, where the flows run. */
  poll(now: number): void;
  /** Asks the flow to end; false when no such flow is active. */
  close(flowId: string, reason: CloseRequest): boolean;
  /** Ends every flow, resolving once all have completed or after `timeoutMs`. */
  closeAll(reason: CloseRequest, timeoutMs: number): Promise<void>;
}
