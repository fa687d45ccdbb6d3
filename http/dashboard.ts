import { Router, type RequestHandler } from 'express';
import type { ControlOps } from '../actors/control/control-ops.js';
import { createBoard, type Board } from './bull-board.js';
import { problem, sendProblem } from './common/problem.js';

/**
 * The dashboard's pages may load only what the node serves. bull-board's page links a
 * Google Fonts stylesheet: an operator's browser would tell a third party each time it
 * opened a node's dashboard (and wait for it on a network without Internet); the page
 * falls back to the browser's fonts. The queues also show event payloads, whose target
 * hosts come from clients: nothing from elsewhere may run beside them.
 */
export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

/**
 * The BullMQ dashboard (bull-board) of the node's Webhook sink queues, for nodes on
 * Redis. The board is made on the first visit, and the queue list follows
 * config.apply: it is refreshed whenever the set of Webhook sinks changed.
 */
export function dashboardRoute(ops: ControlOps, mountPath: string): RequestHandler {
  let board: Promise<Board> | null = null;
  let shown = '';
  const router = Router();
  router.use(async (req, res, next) => {
    const view = ops.queueView();
    if (!view) return sendProblem(res, problem('NOT_FOUND', 'the backlog dashboard needs `redis` in the config'));
    try {
      board ??= createBoard({ redis: view.redis, title: `weir ${view.nodeId}`, mountPath, byNode: false });
      const b = await board;
      const key = view.sinks.join('\n');
      if (key !== shown) {
        await b.show(view.sinks.map((tag) => ({ nodeId: view.nodeId, tag })));
        shown = key;
      }
      res.set('Content-Security-Policy', DASHBOARD_CSP);
      b.router(req, res, next);
    } catch (err) {
      next(err);
    }
  });
  return router;
}
