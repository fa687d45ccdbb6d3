import type { FlowRecord, Outcome } from '../../streams/contract.js';

/** One completed flow as flow.completed carried it: its event's sequence and principal_key, and its final record. */
export interface CompletedFlow {
  sequence: number;
  principal_key: string | null;
  record: FlowRecord;
}

export interface HistoryFilter {
  /** Only flows of this principal_key; null for flows without one; undefined for all. */
  principal?: string | null;
  /** Only flows through this outbound: path.outbound's tag, or route.target for a flow that got none (blocked, or failed before it connected). */
  outbound?: string;
  outcome?: Outcome;
  /** Only flows that ended at or after this time (timing.ended_at_unix_ms). */
  since_unix_ms?: number;
  /** Only flows that ended before this time. */
  until_unix_ms?: number;
}

export interface HistoryPage {
  /** Newest first. */
  flows: CompletedFlow[];
  /** The `before` of the next page; null when no older flow matches. */
  next_before: number | null;
  /** How many completed flows the history keeps at most (flows.history_size). */
  history_size: number;
}

function matches(f: CompletedFlow, q: HistoryFilter): boolean {
  const ended = f.record.timing.ended_at_unix_ms ?? f.record.timing.started_at_unix_ms;
  return (
    (q.principal === undefined || f.principal_key === q.principal) &&
    (q.outbound === undefined || (f.record.path.outbound?.tag ?? f.record.route.target) === q.outbound) &&
    (q.outcome === undefined || f.record.result?.outcome === q.outcome) &&
    (q.since_unix_ms === undefined || ended >= q.since_unix_ms) &&
    (q.until_unix_ms === undefined || ended < q.until_unix_ms)
  );
}

/**
 * The most recent completed flows in a ring of fixed size: the oldest is replaced by
 * the newest, so the memory is bounded by the size whatever the traffic. A flow is
 * kept as the references flow.completed already holds; adding copies nothing.
 */
export class FlowHistory {
  private readonly slots: (CompletedFlow | undefined)[];
  /** Where the next flow goes. */
  private next = 0;
  private count = 0;

  constructor(readonly size: number) {
    this.slots = new Array<CompletedFlow | undefined>(size);
  }

  add(flow: CompletedFlow): void {
    if (this.size === 0) return;
    this.slots[this.next] = flow;
    this.next = (this.next + 1) % this.size;
    this.count = Math.min(this.count + 1, this.size);
  }

  /** The sequence of a kept flow's completion, to page on from it; undefined when it is not (or no longer) kept. */
  sequenceOf(flowId: string): number | undefined {
    for (const f of this.newestFirst()) if (f.record.flow_id === flowId) return f.sequence;
    return undefined;
  }

  /** Up to `limit` matching flows completed before sequence `before` (all when undefined), newest first. */
  page(q: HistoryFilter & { limit: number; before?: number }): HistoryPage {
    const flows: CompletedFlow[] = [];
    let next_before: number | null = null;
    for (const f of this.newestFirst()) {
      if ((q.before !== undefined && f.sequence >= q.before) || !matches(f, q)) continue;
      if (flows.length === q.limit) {
        next_before = flows[flows.length - 1]!.sequence;
        break;
      }
      flows.push(f);
    }
    return { flows, next_before, history_size: this.size };
  }

  private *newestFirst(): IterableIterator<CompletedFlow> {
    for (let i = 1; i <= this.count; i++) yield this.slots[(this.next - i + this.size) % this.size]!;
  }
}
