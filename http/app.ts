import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { ControlOps } from '../actors/control/control-ops.js';
import type { Secret } from '../actors/config/secret.js';
import type { ControlAuth } from './auth/control-auth.js';
import { readable } from './auth/route-scope.js';
import type { ClashApi } from './clash/clash-api.js';
import type { Registry } from 'prom-client';
import { metricsRoute } from './metrics/metrics-route.js';
import { dashboardRoute } from './dashboard.js';
import { dashboardAuth } from './dashboard-auth.js';
import { refuseDeclaredTooLarge } from './declared-length.js';
import { errorHandler, notFound } from './error-handler.js';
import { sseRoute } from './events/sse-route.js';
import type { StreamLimits } from './events/stream-limits.js';
import type { SubscriberSlots } from './events/subscriber-slots.js';
import { logRequests } from './request-log.js';
import { requireKey } from './require-key.js';
import { healthRoute, readRoutes } from './routes/read-routes.js';
import { writeRoutes } from './routes/write-routes.js';

export interface AppOptions {
  /** The key check of every face of the listener, behind one throttle of wrong keys. */
  auth: ControlAuth;
  /** For the dashboard's session cookie, derived from it. */
  apiKey: Secret;
  healthRequiresKey: boolean;
  maxBodyBytes: number;
  limits: StreamLimits;
  /** Shared with the WebSocket twin: one count of live subscribers. */
  slots: SubscriberSlots;
  /** The Clash-compatible API at the root paths; it checks the key itself, after CORS. */
  clash: ClashApi;
  /** The node's Prometheus metrics, at GET /metrics behind the key. */
  metrics: Registry;
  log: Logger;
}

/**
 * The Express app of the control plane: log, authenticate, then parse the body
 * (so an unauthenticated client never makes the node read one), route, and turn
 * every failure into problem+json.
 */
/** Where the BullMQ backlog dashboard is mounted (nodes on Redis). */
const DASHBOARD = '/dashboard';

export function buildApp(ops: ControlOps, opts: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  // Every read is live state; a 304 would only hide that it changed.
  app.disable('etag');
  app.use(logRequests(opts.log));
  if (!opts.healthRequiresKey) app.get('/api/v1/health', readable(), healthRoute(ops));
  app.use(DASHBOARD, dashboardAuth(opts.apiKey, opts.auth, DASHBOARD), dashboardRoute(ops, DASHBOARD));
  app.use(opts.clash.router);
  app.use(requireKey(opts.auth));
  // Every body is JSON whatever its Content-Type, so the size limit holds for all.
  // Not strict: a body of valid JSON that is no object (null, 42, "rule") fails validation
  // (422 INVALID_BODY, as [] does) instead of being called invalid JSON.
  app.use(refuseDeclaredTooLarge(opts.maxBodyBytes));
  app.use(express.json({ limit: opts.maxBodyBytes, type: () => true, strict: false }));
  app.get('/api/v1/events/stream', readable(), sseRoute(ops, opts.limits, opts.slots));
  app.get('/metrics', readable(), metricsRoute(opts.metrics));
  app.use(readRoutes(ops), writeRoutes(ops));
  app.use(notFound);
  app.use(errorHandler(opts.log));
  return app;
}
