import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import express, { Router } from 'express';
import type { Logger } from 'pino';
import type { Observable } from 'rxjs';
import type { ControlOps } from '../../actors/control/control-ops.js';
import type { ControlAuth } from '../auth/control-auth.js';
import type { SubscriberSlots } from '../events/subscriber-slots.js';
import { clashAuth } from './clash-auth.js';
import { clashCors } from './clash-cors.js';
import { clashErrorHandler, clashNotFound } from './clash-errors.js';
import { clashStreamPath, isClashPath } from './clash-paths.js';
import { ClashSampler } from './clash-sampler.js';
import { clashWs } from './clash-ws.js';
import { configRoutes } from './config-routes.js';
import { connectionRoutes } from './connection-routes.js';
import { DelayHistory } from './delay-history.js';
import { GlobalChoice } from './global-choice.js';
import { groupRoutes } from './group-routes.js';
import { metaRoutes } from './meta-routes.js';
import { proxyRoutes } from './proxy-routes.js';
import { ruleRoutes } from './rule-routes.js';
import { streamRoutes } from './stream-routes.js';

export interface ClashApiOptions {
  /** The listener's one key check. */
  auth: ControlAuth;
  /** Shared with weir's own streams: one count of live subscribers. */
  slots: SubscriberSlots;
  maxBodyBytes: number;
  /** The node's log lines, for `/logs`. */
  logLines$: Observable<string>;
  log: Logger;
}

export interface ClashApi {
  /** Answers the Clash paths (isClashPath) and passes every other request on. */
  router: Router;
  /** Takes the upgrade when its path is a Clash stream; false leaves it to weir's own WebSocket. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  close(graceMs: number): void;
}

/**
 * The Clash external-controller API of the dashboards (yacd, metacubexd, zashboard) at
 * the listener's root: CORS first (a preflight carries no key), then the API key as the
 * Clash secret, then the routes, each a thin face of a ControlOps operation.
 */
export function clashApi(ops: ControlOps, opts: ClashApiOptions): ClashApi {
  const sampler = new ClashSampler(ops);
  const history = new DelayHistory(ops);
  const global = new GlobalChoice(ops);
  const views = { ops, history, global };
  const src = { sampler, logLines$: opts.logLines$ };
  const api = Router();
  api.use(clashCors, clashAuth(opts.auth));
  // Dashboards send JSON as text/plain too (metacubexd's select): every body is read as JSON.
  api.use(express.json({ limit: opts.maxBodyBytes, type: () => true, strict: false }));
  api.use(metaRoutes(ops), configRoutes(ops, global), proxyRoutes(views), groupRoutes(views));
  api.use(ruleRoutes(ops), connectionRoutes(ops, sampler), streamRoutes(src, opts.slots));
  api.use(clashNotFound, clashErrorHandler(opts.log));
  const router = Router();
  // Leaves this router for weir's own paths; `api` stays a layer of it, so its routes can be listed.
  router.use((req, _res, next) => next(isClashPath(req.path) ? undefined : 'router'));
  router.use(api);
  const ws = clashWs(src, opts.auth, opts.slots, opts.log);
  return {
    router,
    upgrade(req, socket, head) {
      const url = upgradeUrl(req.url);
      const path = url && clashStreamPath(url.pathname);
      if (!url || !path) return false;
      ws.handleUpgrade(req, socket, head, path, url);
      return true;
    },
    close(graceMs) {
      ws.close(graceMs);
      history.close();
    },
  };
}

function upgradeUrl(target: string | undefined): URL | null {
  try {
    return new URL(target ?? '/', 'http://control.invalid');
  } catch {
    return null;
  }
}
