import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CloseRequest } from '../../../actors/flows/flow-actor.js';
import { WorkerFlows } from '../../../actors/workers/worker-flows.js';
import type { FlowChange } from '../../../streams/flow-change.js';
import { activeRecord, AUTH, openingRecord, T0 } from '../flows/fixtures.js';

function table(): { flows: WorkerFlows; closes: [number, string, CloseRequest][]; closedAll: CloseRequest[]; seen: FlowChange[] } {
  const closes: [number, string, CloseRequest][] = [];
  const closedAll: CloseRequest[] = [];
  const flows = new WorkerFlows(
    (owner, id, reason) => {
      closes.push([owner, id, reason]);
      return true;
    },
    (reason) => closedAll.push(reason),
  );
  const seen: FlowChange[] = [];
  flows.changes$.subscribe((c) => seen.push(c));
  return { flows, closes, closedAll, seen };
}

const started = (id: string): FlowChange => ({ kind: 'started', record: openingRecord(id), auth: AUTH });
const routed = (id: string): FlowChange => ({ kind: 'routed', record: activeRecord(id), auth: AUTH });

test('holds the flows of every worker in the order the hub learned them, with growing opening numbers', () => {
  const { flows } = table();
  flows.take(2, started('b-1'));
  flows.take(1, started('a-1'));
  flows.take(2, routed('b-1'));
  assert.equal([...flows.openedRecords()].map(([n, r]) => [n, r.flow_id, r.state]), [
    [1, 'b-1', 'active'],
    [2, 'a-1', 'opening'],
  ]);
  assert.equal([flows.countOf(1), flows.countOf(2)], [{ active: 1, started: 1 }, { active: 1, started: 1 }]);
});

test('sends a close to the worker that owns the flow, and refuses an unknown one', () => {
  const { flows, closes } = table();
  flows.take(2, started('b-1'));
  assert.equal([flows.close('b-1', 'manual'), flows.close('nope', 'manual')], [true, false]);
  assert.equal(closes, [[2, 'b-1', 'manual']]);
});

test('a worker that exits has each of its open flows completed as failed with WORKER_EXITED, the others untouched', () => {
  const { flows, seen } = table();
  flows.take(1, started('a-1'));
  flows.take(1, routed('a-1'));
  flows.take(2, started('b-1'));
  const at = T0 + 5000;
  assert.is(flows.ownerExited(1, at, 'worker 1 (pid 7) exited (SIGKILL)'), 1);
  const last = seen.at(-1)!;
  const before = activeRecord('a-1');
  assert.equal(last, {
    kind: 'completed',
    auth: AUTH,
    record: {
      ...before,
      revision: before.revision + 1,
      state: 'completed',
      timing: { ...before.timing, ended_at_unix_ms: at, duration_ms: at - T0 },
      result: { outcome: 'failed', close_reason: 'upstream_error', failure: { stage: 'worker', code: 'WORKER_EXITED', message: 'worker 1 (pid 7) exited (SIGKILL)' } },
    },
  });
  assert.equal(flows.activeRecords().map((r) => r.flow_id), ['b-1']);
  assert.equal(flows.countOf(1), { active: 0, started: 0 });
});

test('closeAll resolves once the workers have completed every flow', async () => {
  const { flows, closedAll } = table();
  flows.take(1, started('a-1'));
  let done = false;
  const closing = flows.closeAll('shutdown', Infinity).then(() => (done = true));
  await Promise.resolve();
  assert.equal(closedAll, ['shutdown'], 'every worker is told');
  assert.is(done, false);
  flows.take(1, { kind: 'completed', record: { ...activeRecord('a-1'), state: 'completed' }, auth: AUTH });
  await closing;
  assert.is(flows.size, 0);
});

test.run();
