import { flowTransition } from '../flows/flow-logic.js';
import type { FlowChange } from '../../streams/flow-change.js';

/**
 * The flow.completed the hub publishes for a flow whose worker exited before it ended:
 * outcome `failed`, failure WORKER_EXITED, ended when the hub learned of the exit. Its
 * counters are those of the last record the worker delivered (its last flow.updated
 * sample or lifecycle event): what the worker relayed after that is not known.
 */
export function exitedFlow(last: FlowChange, at: number, message: string): FlowChange {
  const result = { outcome: 'failed', close_reason: 'upstream_error', failure: { stage: 'worker', code: 'WORKER_EXITED', message } } as const;
  return { kind: 'completed', record: flowTransition(last.record, { type: 'completed', at, traffic: last.record.traffic, result }), auth: last.auth };
}
