import http from 'node:http';
import https from 'node:https';
import type { Logger } from 'pino';
import { loadTlsMaterial, type TlsPaths } from './tls-material.js';
import { tlsReloader } from './tls-reloader.js';

/** Ms a client gets to complete its TLS handshake, like the request head's 10 s. */
const HANDSHAKE_TIMEOUT_MS = 10_000;

/** Makes the control plane's listeners (the control listener, the metrics listener): HTTPS with control.tls, else HTTP. */
export interface ControlServers {
  readonly tls: boolean;
  create(app: http.RequestListener): http.Server;
  /** SIGHUP: reads control.tls again for every server made (TlsReloader). False without TLS, or when the new files cannot serve. */
  reloadTls(): boolean;
  close(): void;
}

/**
 * The servers of one control plane, all on the same certificate. The files are read
 * and checked here, before anything listens, so a bad one stops the start with a
 * TlsError naming it. `client_ca` asks every client for a certificate it signed and
 * refuses the handshake without one (mTLS).
 */
export function controlServers(timeouts: http.ServerOptions, paths: TlsPaths | undefined, log: Logger): ControlServers {
  if (paths === undefined) {
    return { tls: false, create: (app) => http.createServer(timeouts, app), reloadTls: () => false, close: () => undefined };
  }
  const { context } = loadTlsMaterial(paths);
  const mutual = paths.client_ca !== undefined;
  const servers: https.Server[] = [];
  const reloader = tlsReloader(paths, servers, log);
  return {
    tls: true,
    create(app) {
      const server = https.createServer({ ...timeouts, ...context, requestCert: mutual, rejectUnauthorized: mutual, handshakeTimeout: HANDSHAKE_TIMEOUT_MS }, app);
      servers.push(server);
      return server;
    },
    reloadTls: () => reloader.reload('signal'),
    close: () => reloader.close(),
  };
}
