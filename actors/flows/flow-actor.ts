import type { CloseReason, FlowAuth, FlowPath, FlowRecord, FlowResult, FlowRoute, FlowTraffic } from '../../streams/contract.js';
import type { FlowChange } from '../../streams/flow-change.js';
import { flowTransition, initialFlowRecord, type FlowDetail, type FlowEvent, type FlowInit } from './flow-logic.js';
import { WeirError } from '../errors/weir-error.js';

/**
 * How the sampler reads a relay's counters. `total` is the sum of every counter; all
 * of them only grow, so it moves exactly when one of them did, and an idle flow is
 * told apart without building a FlowTraffic.
 */
export interface TrafficMeter {
  total(): number;
  read(): FlowTraffic;
}

/**
 * Why a flow is ended from outside its relay: by the node (flows.close, idle timeout,
 * shutdown), or by its client leaving while the flow opens (`client_left`; once it
 * relays, the relay sees the client's end itself). `shutdown` and `client_left` set
 * no close_reason: a relaying flow keeps its relayed outcome, an opening one is
 * `cancelled`.
 */
export type CloseRequest = 'manual' | 'idle_timeout' | 'shutdown' | 'client_left';

/** Thrown by FlowActor.opening when the flow is ended (by the node, or its client leaving) before it is established. */
export class FlowCancelledError extends WeirError<'FLOW_CANCELLED'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('FLOW_CANCELLED', message, options);
  }
}

/** Where an actor hands each change: its table, which passes them on as one stream. */
export type FlowChangeSink = (change: FlowChange) => void;

/**
 * The shell around one flow's pure logic. It owns the current FlowRecord, hands each
 * change to `publish`, and reads the relay's byte counters only when sampled, so the
 * relay itself does no per-chunk work for observation. It has no stream of its own: a
 * Subject per flow, merged by the table, cost a subscription and an operator chain
 * per flow for what one table-wide stream carries.
 */
export class FlowActor {
  private current: FlowRecord;
  private meter: TrafficMeter | null = null;
  /** The meter's total at the last sample: an idle flow costs one number read per tick. */
  private lastTotal = -1;
  private closer: (() => void) | null = null;
  /** Learned while opening; recorded with flow.routed or flow.completed. */
  private learned: FlowDetail | undefined;
  /** Set when the node asked the flow to end; the relay's end then reads it. */
  closeRequest: CloseRequest | null = null;

  constructor(
    init: FlowInit,
    readonly auth: FlowAuth,
    private readonly publish: FlowChangeSink,
  ) {
    this.current = initialFlowRecord(init);
  }

  get record(): FlowRecord {
    return this.current;
  }

  get id(): string {
    return this.current.flow_id;
  }

  get completed(): boolean {
    return this.current.state === 'completed';
  }

  started(): void {
    this.publish({ kind: 'started', record: this.current, auth: this.auth });
  }

  routed(at: number, route: FlowRoute, path: FlowPath, resolved_ip?: string): void {
    const detail = this.learned;
    this.learned = undefined;
    this.apply({ type: 'routed', at, route, path, resolved_ip, detail }, 'routed');
  }

  /**
   * Takes what was learned about the flow (process, sniffed host). An opening flow
   * keeps it for flow.routed or flow.completed, so no event is spent on it; on an
   * active flow it is a new revision, published like a traffic sample with the next
   * flow.updated (or the flow.completed, whichever comes first).
   */
  learn(detail: FlowDetail): void {
    if (this.completed) return;
    if (this.current.state === 'opening') this.learned = { ...this.learned, ...detail };
    else this.apply({ type: 'detail', detail }, 'traffic');
  }

  /** Connects the relay: how to read its counters and how to tear it down. */
  attach(meter: TrafficMeter, closer: () => void): void {
    this.meter = meter;
    this.closer = closer;
  }

  /** Reads the counters; returns true when they moved since the last sample. */
  sample(at: number): boolean {
    if (!this.meter || this.completed) return false;
    const total = this.meter.total();
    if (total === this.lastTotal) return false;
    this.lastTotal = total;
    return this.apply({ type: 'traffic', at, traffic: this.meter.read() }, 'traffic');
  }

  /**
   * Ends the flow; `route` records a decision for a flow that never became active
   * (blocked), `unrelayed` the counters of one that had no relay to read them from.
   */
  complete(at: number, result: FlowResult, route?: FlowRoute, unrelayed?: FlowTraffic): void {
    const traffic = this.meter ? this.meter.read() : (unrelayed ?? this.current.traffic);
    this.apply({ type: 'completed', at, traffic, result, route, detail: this.learned }, 'completed');
  }

  /**
   * Waits for one step of the opening (pre-routing, the dial) unless the node asks the
   * flow to end first: then it rejects with FlowCancelledError at once, so a dial or
   * hook that takes longer than the shutdown grace cannot outlive engine.stopped, and
   * `discard` gets what the step yields later (a socket to close).
   */
  opening<T>(step: Promise<T>, discard: (late: T) => void = () => {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let cancelled = false;
      const cancel = (): void => {
        cancelled = true;
        reject(new FlowCancelledError(`flow closed (${this.closeRequest}) while opening`));
      };
      step.then(
        (value) => {
          if (cancelled) discard(value);
          else {
            this.closer = null;
            resolve(value);
          }
        },
        (err: unknown) => {
          if (cancelled) return;
          this.closer = null;
          reject(err);
        },
      );
      if (this.closeRequest) cancel();
      else this.closer = cancel;
    });
  }

  /**
   * Ends the opening when the client leaves first (`left` settles): a dial or hook
   * still pending is cancelled as by requestClose, so the flow completes at once
   * instead of when the dial ends (the whole connect timeout, for an outbound that
   * does not answer). Nothing is done once the flow is established or ended.
   */
  endOpeningOn(left: Promise<void>): void {
    void left.then(() => {
      if (this.current.state === 'opening') this.requestClose('client_left');
    });
  }

  /** Asks the flow to end: an opening step is cancelled, a relay torn down; it completes when its sockets have closed. */
  requestClose(reason: CloseRequest): void {
    if (this.completed) return;
    this.closeRequest ??= reason;
    this.closer?.();
  }

  /** close_reason for a flow that ended without an error of its own. */
  get closeReason(): CloseReason | null {
    return this.closeRequest === 'manual' || this.closeRequest === 'idle_timeout' ? this.closeRequest : null;
  }

  private apply(event: FlowEvent, kind: FlowChange['kind']): boolean {
    const next = flowTransition(this.current, event);
    if (next === this.current) return false;
    this.current = next;
    this.publish({ kind, record: next, auth: this.auth });
    return true;
  }
}
