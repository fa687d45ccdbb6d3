import { Router, type RequestHandler } from 'express';
import type { ControlOps } from '../../actors/control/control-ops.js';
import { replayGapHeaders } from '../events/replay-gap.js';
import { completedFlowsQuery, flowsState } from './completed-flows.js';
import { listFlows } from './flow-listing.js';
import { integerParam, MAX_REPLAY_LIMIT, sequenceParam, typesParam } from '../common/query-params.js';

export function healthRoute(ops: ControlOps): RequestHandler {
  return (_req, res) => {
    res.json(ops.health());
  };
}

/** The contract's read endpoints; lists are wrapped in an object so fields can be added later. */
export function readRoutes(ops: ControlOps): Router {
  const r = Router();
  r.get('/health', healthRoute(ops));
  r.get('/runtime', (_req, res) => {
    res.json(ops.runtime());
  });
  r.get('/stats', (_req, res) => {
    res.json(ops.stats());
  });
  r.get('/flows', async (req, res) => {
    if (flowsState(req.query) === 'completed') res.json(ops.completedFlows(completedFlowsQuery(req.query)));
    else await listFlows(ops, req, res);
  });
  r.get('/flows/:flow_id', (req, res) => {
    res.json(ops.flow(req.params.flow_id));
  });
  r.get('/sinks', async (_req, res) => {
    res.json({ sinks: await ops.freshSinks() });
  });
  r.get('/principals', (_req, res) => {
    res.json(ops.principals());
  });
  r.get('/policies', (_req, res) => {
    res.json({ policies: ops.policies() });
  });
  // Replay from the ring: `since` (exclusive), `limit` (default 1000), `types`; never flow.snapshot.
  r.get('/events', (req, res) => {
    const page = ops.eventsJson({
      since: sequenceParam('since', req.query['since']),
      limit: integerParam('limit', req.query['limit'], { min: 1, max: MAX_REPLAY_LIMIT }),
      types: typesParam(req.query['types']),
    });
    res.set(replayGapHeaders(page.gap)).type('application/json').send(page.json);
  });
  return r;
}
