import express from 'express';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { capConnections } from './connection-cap.js';
import { errorHandler, notFound } from './error-handler.js';
import { listenOn } from '../actors/net/listen-on.js';
import { metricsRoute } from './metrics/metrics-route.js';

export interface MetricsListener {
  address(): { host: string; port: number };
  close(): Promise<void>;
}

/** Scrapers that hold a connection at once; a newcomer past them closes the oldest idle one. */
const MAX_CONNECTIONS = 32;

/**
 * The metrics alone on a listener of their own (`control.metrics_listen`), open without
 * the key: GET (and HEAD) /metrics answers the registry in Prometheus text, anything
 * else is a 404 problem. Nothing else of the control plane is reachable there.
 */
export async function startMetricsListener(
  registry: Registry,
  listen: { host: string; port: number },
  /** Makes the server: HTTP, or HTTPS with control.tls (ControlServers.create). */
  createServer: (app: http.RequestListener) => http.Server,
  log: Logger,
): Promise<MetricsListener> {
  const app = express();
  app.disable('x-powered-by');
  app.get('/metrics', metricsRoute(registry));
  app.use(notFound);
  app.use(errorHandler(log));
  const server = createServer(app);
  capConnections(server, MAX_CONNECTIONS, 'metrics listener', log);
  await listenOn(server, listen, 'control.metrics_listen');
  const { address, port } = server.address() as AddressInfo;
  log.info({ host: address, port }, 'metrics listening');
  return {
    address: () => ({ host: address, port }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
