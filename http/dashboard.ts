import { Router, type RequestHandler } from 'express';
import type { ControlOps } from '../actors/control/control-ops.js';
import { problem, sendProblem } from './problem.js';

type Board = { router: RequestHandler; show(sinks: string[]): Promise<void> };

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
 * Redis. bull-board and BullMQ are loaded on the first visit, and the queue list
 * follows config.apply: it is refreshed whenever the set of Webhook sinks changed.
 */
export function dashboardRoute(ops: ControlOps, mountPath: string): RequestHandler {
  let board: Promise<Board> | null = null;
  let shown = '';
  const router = Router();
  router.use(async (req, res, next) => {
    const view = ops.queueView();
    if (!view) return sendProblem(res, problem('NOT_FOUND', 'the backlog dashboard needs `redis` in the config'));
    try {
      board ??= createBoard(view.redisUrl, view.nodeId, mountPath);
      const b = await board;
      const key = view.sinks.join('\n');
      if (key !== shown) {
        await b.show(view.sinks);
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

async function createBoard(redisUrl: string, nodeId: string, mountPath: string): Promise<Board> {
  const [{ createBullBoard }, { BullMQAdapter }, { ExpressAdapter }, { Queue }, { sinkKeys }] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullMQAdapter'),
    import('@bull-board/express'),
    import('bullmq'),
    import('../actors/outbox/bullmq-keys.js'),
  ]);
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(mountPath);
  const board = createBullBoard({ queues: [], serverAdapter, options: { uiConfig: { boardTitle: `weir ${nodeId}` } } });
  let queues: { close(): Promise<void> }[] = [];
  return {
    router: serverAdapter.getRouter() as RequestHandler,
    async show(sinks) {
      const old = queues;
      const adapters = sinks.map((tag) => {
        const keys = sinkKeys(nodeId, tag);
        // A read-only view: the dashboard shows what the node's connector leases.
        const queue = new Queue(keys.queue, { connection: { url: redisUrl, enableOfflineQueue: false }, prefix: keys.prefix });
        queue.on('error', () => undefined);
        return { queue, adapter: new BullMQAdapter(queue, { readOnlyMode: true, description: `sink ${tag}` }) };
      });
      queues = adapters.map((a) => a.queue);
      board.replaceQueues(adapters.map((a) => a.adapter));
      await Promise.all(old.map((q) => q.close().catch(() => undefined)));
    },
  };
}
