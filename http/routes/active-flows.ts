import type { Request } from 'express';
import { FLOW_PAGE, type ActiveFlowsQuery } from '../../actors/control/control-ops.js';
import { integerParam, sequenceParam } from '../common/query-params.js';

/**
 * The paging query of GET /api/v1/flows (active flows): `limit` and `after` (an opening
 * number, a page's `next`). Undefined when neither is given: the whole table is listed.
 */
export function activeFlowsQuery(query: Request['query']): ActiveFlowsQuery | undefined {
  const limit = integerParam('limit', query['limit'], { min: 1, max: FLOW_PAGE.max });
  const after = sequenceParam('after', query['after']);
  if (limit === undefined && after === undefined) return undefined;
  const q: ActiveFlowsQuery = {};
  if (limit !== undefined) q.limit = limit;
  if (after !== undefined) q.after = after;
  return q;
}
