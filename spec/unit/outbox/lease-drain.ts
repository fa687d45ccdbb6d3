import type { EntrySettlement, LeasedOutbox, OutboxEntry } from '../../../actors/contracts/outbox.js';

/** Drains a LeasedOutbox as the node's lease loop does: lease what is due, settle each, until nothing is. */
export async function leaseDrain(ob: LeasedOutbox, settle: (entry: OutboxEntry) => EntrySettlement): Promise<OutboxEntry[]> {
  const seen: OutboxEntry[] = [];
  for (let leased = await ob.lease(100); leased.length > 0; leased = await ob.lease(100)) {
    for (const entry of leased) {
      seen.push(entry);
      const s = settle(entry);
      if (s.kind === 'ack') await ob.ack([entry.id]);
      else if (s.kind === 'retry') await ob.retry(entry.id, s.error, s.notBeforeUnixMs);
      else await ob.deadLetter(entry.id, s.error);
    }
  }
  return seen;
}
