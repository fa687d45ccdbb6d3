import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { Secret } from '../actors/config/secret.js';
import { API_KEY_ID } from '../actors/config/schema-control.js';
import { controlAuth } from './auth/control-auth.js';
import type { Board } from './bull-board.js';
import { DASHBOARD_CSP } from './dashboard.js';
import { dashboardAuth } from './dashboard-auth.js';
import { errorHandler, notFound } from './error-handler.js';

/** Where `weir dashboard` serves its board. */
export const FLEET_DASHBOARD_PATH = '/';

/**
 * The app of `weir dashboard`: the fleet's board behind the API key (a Bearer header,
 * or `?token=` once then a session cookie, as a node's dashboard), every answer under
 * the node dashboard's content-security policy.
 */
export function fleetDashboardApp(board: Board, apiKey: Secret, log: Logger): Express {
  const app = express();
  app.disable('x-powered-by');
  // Every read is live state; a 304 would only hide that it changed.
  app.disable('etag');
  app.use((_req, res, next) => {
    res.set('Content-Security-Policy', DASHBOARD_CSP);
    next();
  });
  app.use(dashboardAuth(apiKey, controlAuth([{ id: API_KEY_ID, key: apiKey, scope: 'read' }], log), FLEET_DASHBOARD_PATH));
  app.use(board.router);
  app.use(notFound);
  app.use(errorHandler(log));
  return app;
}
