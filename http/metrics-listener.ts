import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { PROBLEM_CONTENT_TYPE, problem } from './common/problem.js';
import { capConnections } from './connection-cap.js';

export interface MetricsListener {
  address(): { host: string; port: number };
  close(): Promise<void>;
}

/** Scrapers that hold a connection at once; a newcomer past them closes the oldest idle one. */
const MAX_CONNECTIONS = 32;

/**
 * The metrics alone on a listener of their own (`control.metrics_listen`), open without
 * the key: GET (and HEAD) /metrics answers the registry in Prometheus text, anything
 * else 404. Nothing else of the control plane is reachable there.
 */
export async function startMetricsListener(
  registry: Registry,
  listen: { host: string; port: number },
  timeouts: http.ServerOptions,
  log: Logger,
): Promise<MetricsListener> {
  const server = http.createServer(timeouts, (req, res) => {
    const path = (req.url ?? '').split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      const body = JSON.stringify(problem('NOT_FOUND', 'this listener serves GET /metrics only'));
      res.writeHead(404, { 'content-type': PROBLEM_CONTENT_TYPE, 'content-length': Buffer.byteLength(body) }).end(body);
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType, 'content-length': Buffer.byteLength(text) }).end(req.method === 'HEAD' ? undefined : text),
      (err: unknown) => {
        log.warn({ err: err instanceof Error ? err.message : String(err) }, 'metrics collection failed');
        res.writeHead(500).end();
      },
    );
  });
  capConnections(server, MAX_CONNECTIONS, log);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
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
