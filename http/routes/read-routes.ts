import { Router, type RequestHandler } from 'express';
import type { ControlOps } from '../../actors/control/control-ops.js';
import { replayGapHeaders } from '../events/replay-gap.js';
import { completedFlowsQuery, flowsState } from './completed-flows.js';
import { listFlows } from './flow-listing.js';
import { integerParam, MAX_REPLAY_LIMIT, sequenceParam, typesParam } from '../common/query-params.js';
import { readable } from '../auth/route-scope.js';
import { API_PREFIX } from './api-prefix.js';

export function healthRoute(ops: ControlOps): RequestHandler {
  return (_req, res) => {
    res.json(ops.health());
  };
}

/** The contract's read endpoints (scope `read`); lists are wrapped in an object so fields can be added later. */
export function readRoutes(ops: ControlOps): Router {
  const r = Router();
  r.get(`${API_PREFIX}/health`, readable(), healthRoute(ops));
  r.get(`${API_PREFIX}/runtime`, readable(), (_req, res) => {
    res.json(ops.runtime());
  });
  r.get(`${API_PREFIX}/stats`, readable(), (_req, res) => {
    res.json(ops.stats());
  });
  r.get(`${API_PREFIX}/flows`, readable(), async (req, res) => {
    if (flowsState(req.query) === 'completed') res.json(ops.completedFlows(completedFlowsQuery(req.query)));
    else await listFlows(ops, req, res);
  });
  r.get(`${API_PREFIX}/flows/:flow_id`, readable<{ flow_id: string }>(), (req, res) => {
    res.json(ops.flow(req.params.flow_id));
  });
  r.get(`${API_PREFIX}/sinks`, readable(), async (_req, res) => {
    res.json({ sinks: await ops.freshSinks() });
  });
  r.get(`${API_PREFIX}/principals`, readable(), (_req, res) => {
    res.json(ops.principals());
  });
  r.get(`${API_PREFIX}/policies`, readable(), (_req, res) => {
    res.json({ policies: ops.policies() });
  });
  // Replay from the ring: `since` (exclusive), `limit` (default 1000), `types`; never flow.snapshot.
  r.get(`${API_PREFIX}/events`, readable(), (req, res) => {
    const page = ops.eventsJson({
      since: sequenceParam('since', req.query['since']),
      limit: integerParam('limit', req.query['limit'], { min: 1, max: MAX_REPLAY_LIMIT }),
      types: typesParam(req.query['types']),
    });
    res.set(replayGapHeaders(page.gap)).type('application/json').send(page.json);
  });
  return r;
}
