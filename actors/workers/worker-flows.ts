import { Subject, type Observable } from 'rxjs';
import type { FlowRecord } from '../../streams/contract.js';
import type { FlowChange } from '../../streams/flow-change.js';
import { within } from '../base/within.js';
import type { ActiveFlows } from '../flows/active-flows.js';
import type { CloseRequest } from '../flows/flow-actor.js';
import { exitedFlow } from './exited-flow.js';

/** One worker's flow as the hub holds it: its latest change and where to send a close. */
interface HeldFlow {
  last: FlowChange;
  owner: number;
  opening: number;
}

/**
 * The hub's table of its workers' active flows, kept from the changes they send: the
 * node's one flow table (listing, snapshot, stats), whose closes go to the owner.
 */
export class WorkerFlows implements ActiveFlows {
  /** In opening order, as the hub learned of them. */
  private readonly held = new Map<string, HeldFlow>();
  private readonly changes = new Subject<FlowChange>();
  private openings = 0;
  /** Flows each worker started, for the workers' view. */
  private readonly started = new Map<number, number>();
  private readonly drained = new Set<() => void>();
  readonly changes$: Observable<FlowChange> = this.changes.asObservable();

  constructor(
    /** Sends to the owner; false when it is gone. */
    private readonly sendClose: (owner: number, flowId: string, reason: CloseRequest) => boolean,
    /** Asks every worker to end its flows. */
    private readonly sendCloseAll: (reason: CloseRequest) => void,
  ) {}

  /** A change one worker sent, in its order. */
  take(owner: number, change: FlowChange): void {
    const id = change.record.flow_id;
    if (change.kind === 'completed') this.remove(id);
    else {
      const flow = this.held.get(id);
      if (flow) flow.last = change;
      else {
        this.held.set(id, { last: change, owner, opening: ++this.openings });
        this.started.set(owner, (this.started.get(owner) ?? 0) + 1);
      }
    }
    this.changes.next(change);
  }

  /** Ends every flow of a worker that exited as `failed` with WORKER_EXITED (exitedFlow). */
  ownerExited(owner: number, at: number, message: string): number {
    const ended = [...this.held.values()].filter((f) => f.owner === owner);
    for (const flow of ended) this.take(owner, exitedFlow(flow.last, at, message));
    this.started.delete(owner);
    return ended.length;
  }

  /** How many flows `owner` runs now, and has started in all. */
  countOf(owner: number): { active: number; started: number } {
    let active = 0;
    for (const flow of this.held.values()) if (flow.owner === owner) active++;
    return { active, started: this.started.get(owner) ?? 0 };
  }

  get size(): number {
    return this.held.size;
  }

  *records(): IterableIterator<FlowRecord> {
    for (const flow of this.held.values()) yield flow.last.record;
  }

  *openedRecords(): IterableIterator<[number, FlowRecord]> {
    for (const flow of this.held.values()) yield [flow.opening, flow.last.record];
  }

  activeRecords(): FlowRecord[] {
    return Array.from(this.records());
  }

  get(flowId: string): { readonly record: FlowRecord } | undefined {
    return this.held.get(flowId)?.last;
  }

  /** The workers read their own counters. */
  poll(): void {}

  close(flowId: string, reason: CloseRequest): boolean {
    const flow = this.held.get(flowId);
    return flow !== undefined && this.sendClose(flow.owner, flowId, reason);
  }

  async closeAll(reason: CloseRequest, timeoutMs: number): Promise<void> {
    this.sendCloseAll(reason);
    if (this.held.size === 0) return;
    await within(new Promise<void>((resolve) => this.drained.add(resolve)), timeoutMs);
  }

  private remove(flowId: string): void {
    this.held.delete(flowId);
    if (this.held.size > 0) return;
    for (const resolve of this.drained) resolve();
    this.drained.clear();
  }
}
