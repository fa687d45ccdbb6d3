import { Subject, type Observable } from 'rxjs';
import type { FlowAuth, FlowRecord } from '../../streams/contract.js';
import type { FlowChange } from '../../streams/flow-change.js';
import { within } from '../base/within.js';
import { FlowActor, type CloseRequest } from './flow-actor.js';
import type { FlowInit } from './flow-logic.js';
import { extend } from '../base/revise.js';

export interface FlowTableOptions {
  /** Prefix that keeps flow ids unique across engine starts. */
  idPrefix: string;
  /** A flow whose counters have not moved for this long is closed with `idle_timeout`. */
  idleTimeoutMs: number;
}

/** The active table: every open flow actor, and the one stream of their changes. */
export class FlowTable {
  /** In opening order: a Map iterates in the order its keys were added. */
  private readonly actors = new Map<string, FlowActor>();
  private readonly changes = new Subject<FlowChange>();
  private counter = 0;
  private readonly drained = new Set<() => void>();
  /** Set by closeAll: no flow opens after it, so closeAll's wait covers every flow there is. */
  private closing = false;
  /**
   * Every actor's changes, in the order they happen. A completed flow leaves the table
   * before its change is passed on, so a consumer never finds it among the active ones;
   * the engine keeps one subscriber on this stream for the whole run.
   */
  readonly changes$: Observable<FlowChange> = this.changes.asObservable();
  /** What every actor hands its changes to. */
  private readonly publish = (change: FlowChange): void => {
    if (change.kind === 'completed') this.remove(change.record.flow_id);
    this.changes.next(change);
  };

  constructor(private readonly opts: FlowTableOptions) {}

  open(init: Omit<FlowInit, 'flow_id'>, auth: FlowAuth): FlowActor {
    const actor = new FlowActor(extend(init, { flow_id: `${this.opts.idPrefix}-${(++this.counter).toString(36)}` }), auth, this.publish);
    this.actors.set(actor.id, actor);
    actor.started();
    return actor;
  }

  get(flowId: string): FlowActor | undefined {
    return this.actors.get(flowId);
  }

  /**
   * True once closeAll was called. A connection accepted before the listeners closed
   * can finish its handshake later: it is refused without a flow, so no flow.started
   * comes without its flow.completed before engine.stopped.
   */
  get closed(): boolean {
    return this.closing;
  }

  get size(): number {
    return this.actors.size;
  }

  /** The active flows' records, walked without building an array. */
  *records(): IterableIterator<FlowRecord> {
    for (const actor of this.actors.values()) yield actor.record;
  }

  /**
   * The active flows' records in opening order, each with its opening number: the
   * counter its flow_id was made from (increasing, never reused while the table lives).
   */
  *openedRecords(): IterableIterator<[number, FlowRecord]> {
    const from = this.opts.idPrefix.length + 1;
    for (const actor of this.actors.values()) yield [parseInt(actor.id.slice(from), 36), actor.record];
  }

  activeRecords(): FlowRecord[] {
    return Array.from(this.records());
  }

  /** The 1 s check: read every flow's counters and end the idle ones. */
  poll(now: number): void {
    for (const actor of this.actors.values()) {
      const moved = actor.sample(now);
      if (!moved && actor.record.state === 'active' && now - actor.record.timing.last_activity_at_unix_ms >= this.opts.idleTimeoutMs) {
        actor.requestClose('idle_timeout');
      }
    }
  }

  close(flowId: string, reason: CloseRequest): boolean {
    const actor = this.actors.get(flowId);
    if (!actor) return false;
    actor.requestClose(reason);
    return true;
  }

  /** Ends every flow and resolves once all have completed (or after `timeoutMs`); no flow opens after this call. */
  async closeAll(reason: CloseRequest, timeoutMs: number): Promise<void> {
    this.closing = true;
    if (this.actors.size === 0) return;
    const done = new Promise<void>((resolve) => this.drained.add(resolve));
    for (const actor of [...this.actors.values()]) actor.requestClose(reason);
    await within(done, timeoutMs);
  }

  private remove(flowId: string): void {
    this.actors.delete(flowId);
    if (this.actors.size === 0) {
      for (const resolve of this.drained) resolve();
      this.drained.clear();
    }
  }
}
