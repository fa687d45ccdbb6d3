import { Router } from 'express';
import type { ControlOps } from '../../actors/control/control-ops.js';
import { readable } from '../auth/route-scope.js';
import { clashRules } from './rule-view.js';

/** `GET /rules` (always an array) and the provider lists, empty: weir has no proxy or rule providers. */
export function ruleRoutes(ops: ControlOps): Router {
  const r = Router();
  r.get('/rules', readable(), (_req, res) => {
    res.json({ rules: clashRules(ops.routing().route) });
  });
  r.get('/providers/proxies', readable(), (_req, res) => {
    res.json({ providers: {} });
  });
  r.get('/providers/rules', readable(), (_req, res) => {
    res.json({ providers: {} });
  });
  return r;
}
