import path from 'node:path';
import { ConfigSource } from '../../actors/config/config-source.js';
import { ControlOps } from '../../actors/control/control-ops.js';
import { Engine } from '../../actors/engine/engine.js';
import { createLogger } from '../../actors/engine/logger.js';
import { startIpcServer, type IpcServerOptions } from '../../ipc/ipc-server.js';
import { tempDir } from './temp-dir.js';

export interface IpcNode {
  engine: Engine;
  ops: ControlOps;
  stateDir: string;
  socketPath: string;
  /** Port of the `mixed-in` inbound (SOCKS5 and HTTP proxy). */
  proxyPort: number;
  logFile: string;
  stop(): Promise<void>;
}

/** Passed to startIpcServer: bounds small enough for a spec to reach. */
export type IpcNodeOptions = Pick<IpcServerOptions, 'maxBacklogBytes' | 'maxConnections'>;

/**
 * Starts a node in this process (Engine, ControlOps and the IPC server) from a config
 * literal, with its state dir and socket in a fresh temp dir: a mixed inbound on a
 * free port to a `direct` outbound. For the IPC specs that reach into the engine; the
 * CLI specs drive a real `weir run` (support-cli.ts).
 */
export async function startIpcNode(opts: IpcNodeOptions = {}): Promise<IpcNode> {
  // Removed at exit, not by stop(): the logger may still be opening its file in it.
  const stateDir = tempDir('weir-ipc-');
  const logFile = path.join(stateDir, 'weir.log');
  const source = new ConfigSource(null, stateDir, {
    node: { id: 'ipc-e2e', state_dir: stateDir },
    log: { level: 'info', file: logFile },
    control: { listen: '127.0.0.1:0', api_key: 'ipc-e2e-key-not-a-secret' },
    inbounds: [{ type: 'mixed', tag: 'mixed-in', port: 0 }],
    outbounds: [{ type: 'direct', tag: 'direct' }],
    route: { mode: 'rule', rules: [], final: 'direct' },
  });
  const parsed = source.load();
  if (!parsed.ok) throw new Error(`bad test config: ${JSON.stringify(parsed.problems)}`);
  const config = parsed.config;
  const { log, log_files } = createLogger({ level: config.log.level, file: config.log.file });
  const build = { git_hash: 'test', features: [], build_profile: 'test', binary_sha256: 'test' };
  const engine = new Engine({ config, log, build });
  await engine.start();
  const ops = new ControlOps(engine, {
    build,
    configPath: null,
    configSource: source,
    logFiles: log_files,
    getLogLevel: () => log.level,
    log,
    setLogLevel: (level) => (log.level = level),
  });
  const ipc = await startIpcServer(ops, {
    path: config.control.ipc,
    log,
    publish: (e) => engine.bus.publish(e),
    ...opts,
  });
  return {
    engine,
    ops,
    stateDir,
    socketPath: config.control.ipc,
    proxyPort: engine.inbounds[0]!.address()!.port,
    logFile,
    stop: async () => {
      await ipc.close();
      await engine.stop('test');
      log.flush();
    },
  };
}
