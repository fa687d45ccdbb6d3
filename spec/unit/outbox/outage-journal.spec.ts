import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { OutboxEntry } from '../../../actors/contracts/outbox.js';
import { groupsOf } from '../../../actors/outbox/bullmq-jobs.js';
import { journalEntries, journalJobs } from '../../../actors/outbox/outage-journal.js';
import { entries } from './outbox-contract.js';

/** Journal entries as a lease hands them out, appended at `at`. */
const leased = (list: ReturnType<typeof journalEntries>, at = 1000): OutboxEntry[] =>
  list.map((e) => ({ ...e, enqueued_at_unix_ms: at, attempts: 0, replayed_at_unix_ms: null }));

test('the move adds the jobs the failed appends would have added: same ids, same events, their append time', () => {
  const groups = [...groupsOf(entries(1, 5), 2), ...groupsOf(entries(6, 6), 2)];
  const { jobs, rest } = journalJobs(leased(journalEntries(groups), 42), true);
  assert.equal(jobs.map((j) => [j.id, j.events.map((e) => e.id), j.atUnixMs]), [
    ['ev-ev-1', ['ev-1', 'ev-2'], 42],
    ['ev-ev-3', ['ev-3', 'ev-4'], 42],
    ['ev-ev-5', ['ev-5'], 42],
    ['ev-ev-6', ['ev-6'], 42],
  ]);
  assert.equal(jobs[0]!.events[1], { id: 'ev-2', sequence: 2, body: '{"n":2}' });
  assert.equal(jobs[0]!.entryIds, ['ev-ev-1 ev-1', 'ev-ev-1 ev-2']);
  assert.equal(rest, []);
});

test('a lease cut short by its limit hands its last job back, to go whole with the next lease', () => {
  const all = leased(journalEntries(groupsOf(entries(1, 6), 3)));
  const first = journalJobs(all.slice(0, 4), false);
  assert.equal(first.jobs.map((j) => j.id), ['ev-ev-1']);
  assert.equal(first.rest.map((e) => e.id), ['ev-ev-4 ev-4']);
  const second = journalJobs([...first.rest, ...all.slice(4)], true);
  assert.equal(second.jobs.map((j) => [j.id, j.events.map((e) => e.id)]), [['ev-ev-4', ['ev-4', 'ev-5', 'ev-6']]]);
});

test('an entry of an embedded outbox from before Redis (a bare event id) is a job of its own', () => {
  const { jobs } = journalJobs(leased(entries(1, 2)), true);
  assert.equal(jobs.map((j) => [j.id, j.events.map((e) => e.id)]), [['ev-ev-1', ['ev-1']], ['ev-ev-2', ['ev-2']]]);
});

test.run();
