import fs from 'node:fs';
import { setTimeout } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PrincipalLedger } from '../../../actors/principals/principal-ledger.js';
import { PrincipalStore } from '../../../actors/principals/principal-store.js';
import type { FlowAuth, Outcome } from '../../../streams/contract.js';
import type { FlowChange } from '../../../streams/flow-change.js';
import { tempDir } from '../../support/temp-dir.js';
import { activeRecord, openingRecord, T0, traffic } from '../flows/fixtures.js';

const auth = (principal_key: string | null): FlowAuth => ({ scheme: principal_key ? 'socks5' : 'noauth', principal_key, attributes: {} });
const ZERO = { bytes_up: 0, bytes_down: 0, flows_opened: 0, flows_completed: 0, flows_failed: 0 };

function started(id: string, principal: string | null): FlowChange {
  return { kind: 'started', record: openingRecord(id), auth: auth(principal) };
}

function completed(id: string, principal: string | null, up: number, down: number, outcome: Outcome = 'direct_relayed'): FlowChange {
  const record = { ...activeRecord(id), traffic: traffic(up, down) };
  return { kind: 'completed', record: { ...record, state: 'completed', result: { outcome, close_reason: null, failure: null } }, auth: auth(principal) };
}

test('counts per principal, null apart and first; active flows until they complete; nothing for traffic samples', () => {
  const ledger = new PrincipalLedger(T0, null);
  ledger.observe(started('a', 'alice'));
  ledger.observe(started('b', null));
  ledger.observe(started('c', 'alice'));
  ledger.observe({ kind: 'traffic', record: activeRecord('a'), auth: auth('alice') });
  ledger.observe(completed('a', 'alice', 10, 200));
  ledger.observe(completed('b', null, 1, 2, 'failed'));
  const counted = (opened: number, done: number, failed: number, up: number, down: number) => ({
    bytes_up: up, bytes_down: down, flows_opened: opened, flows_completed: done, flows_failed: failed,
  });
  assert.equal(ledger.view(), {
    started_at_unix_ms: T0,
    reset_at_unix_ms: T0,
    principals: [
      { principal_key: null, flows_active: 0, since_start: counted(1, 1, 1, 1, 2), since_reset: counted(1, 1, 1, 1, 2) },
      { principal_key: 'alice', flows_active: 1, since_start: counted(2, 1, 0, 10, 200), since_reset: counted(2, 1, 0, 10, 200) },
    ],
  });
  ledger.reset(T0 + 5);
  const after = ledger.view();
  assert.is(after.reset_at_unix_ms, T0 + 5);
  assert.equal(after.principals.map((p) => p.since_reset), [ZERO, ZERO]);
  assert.equal(after.principals[1]!.since_start, counted(2, 1, 0, 10, 200), 'a reset leaves since_start');
});

test('a later run goes on from the kept since_reset windows, with since_start from zero', async () => {
  const dir = tempDir('weir-principals-');
  const store = new PrincipalStore(dir, (p) => assert.unreachable(p));
  const first = new PrincipalLedger(T0, store.load());
  first.observe(started('a', 'bob'));
  first.observe(completed('a', 'bob', 7, 9));
  // A write under way, then a change and a save at stop: the last content is the stop's.
  store.tick(first, T0 + 60_000);
  first.observe(started('b', 'bob'));
  first.observe(completed('b', 'bob', 1, 1));
  await store.saveNow(first);
  // Time for a write left running to land, as it would over the stop's.
  await setTimeout(200);
  const second = new PrincipalLedger(T0 + 1, new PrincipalStore(dir, (p) => assert.unreachable(p)).load());
  const [bob] = second.view().principals;
  assert.equal(bob, {
    principal_key: 'bob',
    flows_active: 0,
    since_start: ZERO,
    since_reset: { bytes_up: 8, bytes_down: 10, flows_opened: 2, flows_completed: 2, flows_failed: 0 },
  });
  assert.is(second.view().reset_at_unix_ms, T0);
});

test('a damaged file is told and counting starts over', () => {
  const dir = tempDir('weir-principals-');
  fs.writeFileSync(`${dir}/principals.json`, '{"reset_at_unix_ms": "soon"}');
  const problems: string[] = [];
  assert.is(new PrincipalStore(dir, (p) => problems.push(p)).load(), null);
  assert.match(problems[0]!, /principals\.json is damaged; the principals' counters start over/);
});

test.run();
