import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '../support/wait-for.js';
import { accountNode, type NodeAccount } from './fleet-accounting.js';
import { archivedEvents, type FleetNode } from './fleet-nodes.js';
import { reportedGaps } from './fleet-sink-gaps.js';

/** Polls `count` every 500 ms until it stayed the same for `quietMs`, at most `maxMs`; returns its last value. */
export async function quietCount(count: () => number, quietMs: number, maxMs: number): Promise<number> {
  const deadline = Date.now() + maxMs;
  let last = count();
  let since = Date.now();
  while (Date.now() - since < quietMs && Date.now() < deadline) {
    await sleep(500);
    const now = count();
    if (now !== last) [last, since] = [now, Date.now()];
  }
  return last;
}

/**
 * Accounts for every flow.completed each node archived, against the receiver's
 * acknowledgements (`acknowledged()` reads them anew) and the replay gaps the nodes
 * report; polls every second until nothing is unaccounted, at most `maxMs`.
 * `accounted` says whether it came to that; `accounts` are the last ones taken.
 */
export async function settleAccounts(
  nodes: readonly FleetNode[],
  acknowledged: () => Pick<ReadonlySet<string>, 'has'>,
  maxMs: number,
): Promise<{ accounts: NodeAccount[]; accounted: boolean }> {
  const archived = nodes.map(archivedEvents);
  let accounts: NodeAccount[] = [];
  const accounted = await waitFor(
    async () => {
      const gaps = await Promise.all(nodes.map(reportedGaps));
      const acked = acknowledged();
      accounts = nodes.map((n, i) => accountNode({ nodeId: n.id, archived: archived[i]!, gaps: gaps[i] ?? [] }, acked));
      return accounts.every((a) => a.unaccounted === 0);
    },
    maxMs,
    'every archived flow.completed accounted for',
    1000,
  ).then(
    () => true,
    () => false,
  );
  return { accounts, accounted };
}
