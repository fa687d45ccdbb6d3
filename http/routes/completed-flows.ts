import type { Request } from 'express';
import { FLOW_PAGE, type CompletedFlowsQuery } from '../../actors/control/control-ops.js';
import { ControlError } from '../../actors/control/control-error.js';
import { integerParam, sequenceParam, stringParam } from '../common/query-params.js';

/**
 * The query of GET /api/v1/flows?state=completed: `limit`, `before` (a sequence, or a
 * flow id), `principal` (empty for flows without one), `outbound`, `outcome`,
 * `since_unix_ms`, `until_unix_ms`.
 */
export function completedFlowsQuery(query: Request['query']): CompletedFlowsQuery {
  const q: CompletedFlowsQuery = {};
  const limit = integerParam('limit', query['limit'], { min: 1, max: FLOW_PAGE.max });
  if (limit !== undefined) q.limit = limit;
  const before = stringParam('before', query['before']);
  if (before !== undefined) q.before = /^\d+$/.test(before) ? sequenceParam('before', before)! : before;
  const principal = stringParam('principal', query['principal']);
  if (principal !== undefined) q.principal = principal === '' ? null : principal;
  const outbound = stringParam('outbound', query['outbound']);
  if (outbound !== undefined) q.outbound = outbound;
  const outcome = stringParam('outcome', query['outcome']);
  if (outcome !== undefined) q.outcome = outcome;
  const since = sequenceParam('since_unix_ms', query['since_unix_ms']);
  if (since !== undefined) q.since_unix_ms = since;
  const until = sequenceParam('until_unix_ms', query['until_unix_ms']);
  if (until !== undefined) q.until_unix_ms = until;
  return q;
}

/** `state`: absent or `active` lists the active flows, `completed` the history. */
export function flowsState(query: Request['query']): 'active' | 'completed' {
  const state = stringParam('state', query['state']) ?? 'active';
  if (state === 'active' || state === 'completed') return state;
  throw new ControlError('BAD_REQUEST', 'state must be "active" or "completed"');
}
