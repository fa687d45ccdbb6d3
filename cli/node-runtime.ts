import { redisAddressOf } from '../actors/redis/redis-client.js';
import type { Logger } from 'pino';
import type { ConfigSource } from '../actors/config/config-source.js';
import type { WeirConfig } from '../actors/config/schema.js';
import { ControlOps } from '../actors/control/control-ops.js';
import { buildInfo } from '../actors/engine/build-info.js';
import { Engine } from '../actors/engine/engine.js';
import { createLogger, type LogFormat } from '../actors/engine/logger.js';
import { StateDirLock } from '../actors/files/state-dir-lock.js';
import { startHttpControl, type HttpControl } from '../http/control-server.js';
import { startIpcServer, type IpcServer } from '../ipc/ipc-server.js';
import { parseListen } from '../actors/config/schema-control.js';
import { FleetPresence } from '../actors/fleet/fleet-presence.js';
import { presenceOf } from '../actors/fleet/presence-of.js';
import { authority } from '../actors/net/authority.js';
import { WorkerPool } from '../actors/workers/worker-pool.js';

export interface NodeRuntime {
  engine: Engine;
  ops: ControlOps;
  log: Logger;
  /** Where the HTTP control plane listens (its port, when the config said 0). */
  control: { host: string; port: number };
  /** Whether the control plane speaks HTTPS (control.tls). */
  controlTls: boolean;
  /** SIGHUP: reads control.tls again; false without TLS or when the new files cannot serve (logged). */
  reloadTls(): boolean;
  stop(reason: string): Promise<void>;
}

/**
 * Assembles one node: logger, engine, control operations and their two transports
 * (HTTP with SSE/WebSocket, IPC). Stops in the reverse order, so live consumers see
 * engine.stopped before their streams end.
 */
export async function startNodeRuntime(config: WeirConfig, source: ConfigSource, logFormat: LogFormat): Promise<NodeRuntime> {
  // First: nothing of a node that may not run here (its sinks, its outbox) is opened.
  const lock = StateDirLock.acquire(config.node.state_dir);
  const { log, log_files, tap } = createLogger({ level: config.log.level, file: config.log.file, format: logFormat });
  if (lock.unclaimed) log.warn({ problem: lock.unclaimed }, 'state_dir not claimed: a second node on it is not refused');
  const build = buildInfo();
  // node.workers above 1: the workers read the config from where this process did.
  const workers = config.node.workers;
  const origin = { ...source.origin, logFormat };
  const engine = new Engine({ config, log, build, ...(workers > 1 && { plane: (parts) => new WorkerPool({ ...parts, count: workers, source: origin }) }) });
  const ops = new ControlOps(engine, {
    build,
    configPath: source.file,
    configSource: source,
    logFiles: log_files,
    getLogLevel: () => log.level,
    log,
    setLogLevel: (level) => {
      log.level = level;
    },
  });
  let http: HttpControl | null = null;
  let ipc: IpcServer | null = null;
  let presence: FleetPresence | null = null;
  const stop = async (reason: string): Promise<void> => {
    // Side by side: a hung Redis holds the presence's removal (3 s at most), not the stop.
    await Promise.all([presence?.stop(), engine.stop(reason)]);
    await Promise.all([http?.close(), ipc?.close()]);
    lock.release();
  };
  try {
    await engine.start();
    http = await startHttpControl(ops, {
      listen: parseListen(config.control.listen) ?? { host: '127.0.0.1', port: 9090 },
      ...(config.control.metrics_listen !== undefined && { metricsListen: parseListen(config.control.metrics_listen) }),
      apiKey: config.control.api_key,
      keys: config.control.keys,
      ...(config.control.tls && { tls: config.control.tls }),
      healthRequiresKey: config.control.health_requires_key,
      maxBodyBytes: config.control.max_body_bytes,
      logLines$: tap.lines$,
      // The IPC server starts after the HTTP one; until then nobody is subscribed there.
      ipcSubscribers: () => ipc?.subscribers() ?? 0,
      log,
    });
    ipc = await startIpcServer(ops, {
      path: config.control.ipc,
      log,
      publish: (event) => engine.bus.publish(event),
    });
  } catch (err) {
    await stop('start_failed');
    throw err;
  }
  log.info({ control: http.address(), tls: http.tls, metrics: http.metricsAddress(), ipc: ipc.path }, 'control plane listening');
  if (config.redis) {
    presence = new FleetPresence(redisAddressOf(config.redis), config.node.id, presenceOf(ops, authority(http.address())));
    presence.start();
  }
  const control = http;
  return { engine, ops, log, control: http.address(), controlTls: http.tls, reloadTls: () => control.reloadTls(), stop };
}
