import type { FlowRecord } from '../../streams/contract.js';
import type { FlowChange } from '../../streams/flow-change.js';

/**
 * The flow.completed the hub publishes for a flow whose worker exited before it ended:
 * outcome `failed`, failure WORKER_EXITED, ended when the hub learned of the exit. Its
 * counters are those of the last record the worker delivered (its last flow.updated
 * sample or lifecycle event): what the worker relayed after that is not known.
 */
export function exitedFlow(last: FlowChange, at: number, message: string): FlowChange {
  const { record } = last;
  const ended = Math.max(at, record.timing.started_at_unix_ms);
  const completed: FlowRecord = {
    ...record,
    revision: record.revision + 1,
    state: 'completed',
    timing: { ...record.timing, ended_at_unix_ms: ended, duration_ms: ended - record.timing.started_at_unix_ms },
    result: { outcome: 'failed', close_reason: 'upstream_error', failure: { stage: 'worker', code: 'WORKER_EXITED', message } },
  };
  return { kind: 'completed', record: completed, auth: last.auth };
}
