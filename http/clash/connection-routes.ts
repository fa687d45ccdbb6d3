import { Router } from 'express';
import { ControlError } from '../../actors/control/control-error.js';
import type { ControlOps } from '../../actors/control/control-ops.js';
import { readable, write } from '../auth/route-scope.js';
import { clashFace } from './clash-auth.js';
import type { ClashSampler } from './clash-sampler.js';

/**
 * Flows as Clash connections. A close is flows.close (ControlOps.closeFlow): the flow
 * ends `cancelled` with close_reason `manual`. A flow that ended already answers 204
 * too: dashboards close what they saw a second ago.
 */
export function connectionRoutes(ops: ControlOps, sampler: ClashSampler): Router {
  const face = clashFace(ops.audit);
  const r = Router();
  r.get('/connections', readable(), async (_req, res) => {
    res.type('application/json').send(await sampler.now().connectionsJson());
  });
  r.delete('/connections', ...write(face, 'flows.close_all', () => ({}), (_req, res) => {
    ops.closeAllFlows();
    res.status(204).end();
  }));
  r.delete('/connections/:id', ...write(face, 'flows.close', (req) => ({ flow_id: req.params.id }), (req, res) => {
    try {
      ops.closeFlow(req.params.id);
    } catch (err) {
      if (!(err instanceof ControlError && err.code === 'FLOW_NOT_FOUND')) throw err;
    }
    res.status(204).end();
  }));
  return r;
}
