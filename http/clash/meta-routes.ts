import { Router } from 'express';
import type { ControlOps } from '../../actors/control/control-ops.js';
import { readable } from '../auth/route-scope.js';

/** `GET /` (yacd checks for a string `hello`) and `GET /version` (metacubexd and zashboard probe it to connect). */
export function metaRoutes(ops: ControlOps): Router {
  const r = Router();
  r.get('/', readable(), (_req, res) => {
    res.json({ hello: 'weir' });
  });
  r.get('/version', readable(), (_req, res) => {
    res.json({ meta: true, version: `weir ${ops.runtime()['version'] as string}` });
  });
  return r;
}
