import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { Secret } from '../actors/config/secret.js';
import type { ControlOps } from '../actors/control/control-ops.js';
import type { Observable } from 'rxjs';
import { buildApp } from './app.js';
import { startMetricsListener, type MetricsListener } from './metrics-listener.js';
import { clashApi } from './clash/clash-api.js';
import { nodeMetrics } from './metrics/node-metrics.js';
import { capConnections } from './connection-cap.js';
import { listenOn } from '../actors/net/listen-on.js';
import { PROBLEM_CONTENT_TYPE, problem, type Problem } from './common/problem.js';
import { controlKeys, type ControlKey } from './common/bearer-key.js';
import { controlAuth } from './auth/control-auth.js';
import { routeTable, type ScopedRoute } from './auth/route-table.js';
import { controlServers } from './tls/control-servers.js';
import type { TlsPaths } from './tls/tls-material.js';
import { CLASH_STREAM_PATHS } from './clash/clash-paths.js';
import type { AuthThrottleOptions } from './auth/auth-throttle.js';
import { DEFAULT_STREAM_LIMITS, type StreamLimits } from './events/stream-limits.js';
import { subscriberSlots } from './events/subscriber-slots.js';
import { WS_PATH, wsEvents } from './events/ws-upgrade.js';

export interface HttpControl {
  address(): { host: string; port: number };
  /** Every route of the listener (REST, Clash, the WebSocket upgrades) with the scope it demands. */
  routes(): ScopedRoute[];
  /** Where the metrics listener of `metricsListen` listens; null without one. */
  metricsAddress(): { host: string; port: number } | null;
  /** Whether the listeners speak HTTPS (control.tls). */
  readonly tls: boolean;
  /** Reads control.tls again (SIGHUP); a pair that cannot serve is logged and the one in use stays. */
  reloadTls(): boolean;
  /** Ends every stream and connection and stops listening. */
  close(): Promise<void>;
}

export interface HttpControlOptions {
  listen: { host: string; port: number };
  /** A listener of GET /metrics alone, open without the key (control.metrics_listen); none when absent. */
  metricsListen?: { host: string; port: number };
  /** control.api_key: an admin key with the id `api_key`. */
  apiKey: Secret;
  /** control.keys: more keys, each with an id and a scope. @defaultValue [] */
  keys?: readonly ControlKey[];
  /** Limits of the wrong-key throttle; tests shorten them. */
  authThrottle?: Partial<AuthThrottleOptions>;
  healthRequiresKey: boolean;
  maxBodyBytes: number;
  /** control.tls: the listeners (control and metrics) speak HTTPS, mTLS with a client_ca. Default: plain HTTP. */
  tls?: TlsPaths;
  log: Logger;
  /** The node's log lines (JSON), for the Clash `/logs` stream. */
  logLines$: Observable<string>;
  /** IPC connections holding a subscription now, for the metrics; none when absent. */
  ipcSubscribers?: () => number;
  /** Limits of SSE and WebSocket streams; tests shorten them. */
  streamLimits?: Partial<StreamLimits>;
}

/** Milliseconds WebSocket subscribers get to answer the closing handshake on close(). */
const WS_CLOSE_GRACE_MS = 1000;

/** Connections beside the live streams' slots that the control plane holds at once (see capConnections). */
const MAX_REQUEST_CONNECTIONS = 128;

/**
 * How long a connection may take to send a whole request head, and a whole request.
 * Node's defaults (60 s and 300 s) let anyone who reaches the port, key or not, hold a
 * descriptor per half-sent request for a minute: thousands of them took the
 * descriptors the proxy's own connections need.
 */
const REQUEST_TIMEOUTS = { headersTimeout: 10_000, requestTimeout: 30_000, connectionsCheckingInterval: 2_000 };

/** Starts the control plane (REST, SSE, WebSocket, Clash; HTTPS with `tls`) on one listener. Port 0 picks a free port. */
export async function startHttpControl(ops: ControlOps, opts: HttpControlOptions): Promise<HttpControl> {
  const limits = { ...DEFAULT_STREAM_LIMITS, ...opts.streamLimits };
  const log = opts.log.child({ room: 'http' });
  // First: a certificate that cannot serve stops the start before anything is made.
  const servers = controlServers(REQUEST_TIMEOUTS, opts.tls, log);
  const auth = controlAuth(controlKeys({ api_key: opts.apiKey, keys: opts.keys ?? [] }), log, opts.authThrottle);
  const slots = subscriberSlots(limits.maxSubscribers, log);
  const clash = clashApi(ops, { auth, slots, maxBodyBytes: opts.maxBodyBytes, logLines$: opts.logLines$, log });
  const metrics = nodeMetrics(ops, slots, opts.ipcSubscribers ?? (() => 0));
  const app = buildApp(ops, {
    auth,
    apiKey: opts.apiKey,
    healthRequiresKey: opts.healthRequiresKey,
    maxBodyBytes: opts.maxBodyBytes,
    limits,
    slots,
    clash,
    metrics: metrics.registry,
    log,
  });
  const server = servers.create(app);
  // Bounded like the streams and the IPC channel: what one client can make the node hold.
  capConnections(server, limits.maxSubscribers + MAX_REQUEST_CONNECTIONS, 'control plane', log);
  const ws = wsEvents(ops, auth, limits, slots, log);
  server.on('upgrade', (req, socket, head) => {
    if (!clash.upgrade(req, socket, head)) ws.handleUpgrade(req, socket, head);
  });
  server.on('clientError', answerClientError);
  await listenOn(server, opts.listen, 'control.listen');
  // node-runtime logs `control plane listening` once, with the metrics listener and IPC socket.
  const { address, port } = server.address() as AddressInfo;
  let open: MetricsListener | null = null;
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= Promise.all([
      open?.close(),
      new Promise<void>((resolve) => {
        ws.close(WS_CLOSE_GRACE_MS);
        clash.close(WS_CLOSE_GRACE_MS);
        metrics.close();
        auth.close();
        servers.close();
        server.close(() => resolve());
        // SSE responses never end on their own.
        server.closeAllConnections();
      }),
    ]).then(() => undefined);
    return closing;
  };
  if (opts.metricsListen) {
    try {
      open = await startMetricsListener(metrics.registry, opts.metricsListen, servers.create, log);
    } catch (err) {
      await close();
      throw err;
    }
  }
  return {
    tls: servers.tls,
    reloadTls: () => servers.reloadTls(),
    address: () => ({ host: address, port }),
    // The upgrades are no Express routes: every WebSocket is a stream, and every key reads streams.
    routes: () => [...routeTable((app as unknown as { router: unknown }).router), ...[WS_PATH, ...CLASH_STREAM_PATHS].map((path) => ({ method: 'WS', path, scope: 'read' as const }))],
    metricsAddress: () => open?.address() ?? null,
    close,
  };
}

/** What a request Node refused before any route saw it is answered with, by its error code. */
function clientErrorProblem(code: string | undefined): Problem | null {
  if (code === 'HPE_HEADER_OVERFLOW') return problem('HEADERS_TOO_LARGE', 'the request head is larger than the control plane takes (16 KiB)');
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return problem('REQUEST_TIMEOUT', 'the request did not arrive in time');
  if (code?.startsWith('HPE_')) return problem('BAD_REQUEST', 'the request is not valid HTTP');
  return null;
}

/**
 * A request Node's parser refused or timed out: answered with a problem body like every
 * other refusal (Node's own answer is a bare status line), then closed.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  const body = clientErrorProblem(err.code);
  if (!body || !socket.writable) return void socket.destroy();
  const text = JSON.stringify(body);
  socket.end(`HTTP/1.1 ${body.status} ${body.title}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
}
