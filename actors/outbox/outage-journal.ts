import type { OutboxAppend, OutboxEntry } from '../contracts/outbox.js';
import { jobIdFor } from './bullmq-keys.js';
import type { JobGroup, TimedGroup } from './bullmq-jobs.js';

/**
 * A Redis sink's outage journal keeps one entry per event, id `<job id> <event id>` (job ids hold no space), so
 * the move adds each job under the id the failed append would have used, which BullMQ
 * adds only once. An entry without a job id (an embedded outbox from before Redis) is
 * a job of its own.
 */
const SEPARATOR = ' ';

export function journalEntries(groups: readonly JobGroup[]): OutboxAppend[] {
  return groups.flatMap((g) => g.events.map((e) => ({ ...e, id: `${g.id}${SEPARATOR}${e.id}` })));
}

/** A job of the journal: its events, their entries' ids, and its append time. */
export interface JournalJob extends TimedGroup {
  entryIds: string[];
}

/** The jobs of leased entries, oldest first. Only the last may be cut short by the lease's limit: unless `complete`, it goes back in `rest`. */
export function journalJobs(entries: readonly OutboxEntry[], complete: boolean): { jobs: JournalJob[]; rest: OutboxEntry[] } {
  const jobs: JournalJob[] = [];
  const firstOf: OutboxEntry[] = [];
  for (const entry of entries) {
    const at = entry.id.indexOf(SEPARATOR);
    const jobId = at < 0 ? jobIdFor(entry.id) : entry.id.slice(0, at);
    const event = { id: at < 0 ? entry.id : entry.id.slice(at + 1), sequence: entry.sequence, body: entry.body };
    const last = jobs.at(-1);
    if (last && last.id === jobId) {
      (last.events as OutboxAppend[]).push(event);
      last.entryIds.push(entry.id);
      continue;
    }
    jobs.push({ id: jobId, events: [event], entryIds: [entry.id], atUnixMs: entry.enqueued_at_unix_ms });
    firstOf.push(entry);
  }
  if (complete || jobs.length < 2) return { jobs, rest: [] };
  const cut = entries.indexOf(firstOf.at(-1)!);
  jobs.pop();
  return { jobs, rest: entries.slice(cut) };
}
