import { inAnyGap, type Gap } from '../support/replay-gaps.js';
import { columns, num } from './fleet-report.js';

/** One flow.completed a node archived in its JSONL sink. */
export interface ArchivedEvent {
  readonly event_id: string;
  readonly sequence: number;
}

/** What one node archived, and the replay gaps its Webhook sink reports (connector state `gaps`). */
export interface NodeLedger {
  readonly nodeId: string;
  readonly archived: readonly ArchivedEvent[];
  readonly gaps: readonly Gap[];
}

/**
 * Where a node's archived flow.completed ended up. Every event is in exactly one of
 * `acknowledged`, `inGap` and `unaccounted`; `acknowledgedInGap` are those of
 * `acknowledged` a reported gap takes in as well (a gap may hold events kept after all).
 */
export interface NodeAccount {
  readonly nodeId: string;
  readonly archived: number;
  readonly acknowledged: number;
  readonly acknowledgedInGap: number;
  /** Not acknowledged, inside a reported gap: lost for the sink, and said so. */
  readonly inGap: number;
  /** Neither acknowledged nor inside a reported gap. */
  readonly unaccounted: number;
  /** The first few unaccounted event_ids, for the diagnosis. */
  readonly unaccountedIds: readonly string[];
}

const IDS_SHOWN = 3;

/** `acknowledged` holds the event_ids the receiver acknowledged. */
export function accountNode(ledger: NodeLedger, acknowledged: Pick<ReadonlySet<string>, 'has'>): NodeAccount {
  let ack = 0;
  let ackInGap = 0;
  let inGap = 0;
  const unaccounted: string[] = [];
  for (const e of ledger.archived) {
    const gap = inAnyGap(e.sequence, ledger.gaps);
    if (acknowledged.has(e.event_id)) {
      ack += 1;
      if (gap) ackInGap += 1;
    } else if (gap) inGap += 1;
    else unaccounted.push(e.event_id);
  }
  return {
    nodeId: ledger.nodeId,
    archived: ledger.archived.length,
    acknowledged: ack,
    acknowledgedInGap: ackInGap,
    inGap,
    unaccounted: unaccounted.length,
    unaccountedIds: unaccounted.slice(0, IDS_SHOWN),
  };
}

/** The sum of the nodes' accounts, under `nodeId`. */
export function sumAccounts(nodeId: string, accounts: readonly NodeAccount[]): NodeAccount {
  const sum = (field: 'archived' | 'acknowledged' | 'acknowledgedInGap' | 'inGap' | 'unaccounted'): number => accounts.reduce((s, a) => s + a[field], 0);
  return {
    nodeId,
    archived: sum('archived'),
    acknowledged: sum('acknowledged'),
    acknowledgedInGap: sum('acknowledgedInGap'),
    inGap: sum('inGap'),
    unaccounted: sum('unaccounted'),
    unaccountedIds: accounts.flatMap((a) => a.unaccountedIds).slice(0, IDS_SHOWN),
  };
}

/**
 * The accounting as text: one row per node in `shown` and per node with anything
 * unaccounted, a row for the whole fleet, then the verdict.
 */
export function formatAccounts(accounts: readonly NodeAccount[], shown: ReadonlySet<string>): string {
  const total = sumAccounts(`all ${accounts.length} nodes`, accounts);
  const rows = [...accounts.filter((a) => shown.has(a.nodeId) || a.unaccounted > 0), total];
  const header = ['NODE', 'ARCHIVED', 'ACKNOWLEDGED', 'OF WHICH IN A GAP', 'IN A GAP, NOT ACKED', 'UNACCOUNTED'];
  const cells = [header, ...rows.map((a) => [a.nodeId, ...[a.archived, a.acknowledged, a.acknowledgedInGap, a.inGap, a.unaccounted].map((n) => num(n))])];
  const table = columns(cells);
  const verdict =
    total.unaccounted === 0
      ? `verdict: every archived flow.completed accounted for (${num(total.acknowledged)} acknowledged, ${num(total.inGap)} in a reported replay gap)`
      : `verdict: FAIL, ${num(total.unaccounted)} archived flow.completed neither acknowledged nor in a reported replay gap, e.g. ${total.unaccountedIds.join(', ')}`;
  return `${table}\n${verdict}`;
}
