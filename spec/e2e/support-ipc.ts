import path from 'node:path';
import { ConfigSource } from '../../actors/config/config-source.js';
import { ControlOps } from '../../actors/control/control-ops.js';
import { Engine } from '../../actors/engine/engine.js';
import { createLogger } from '../../actors/engine/logger.js';
import { startIpcServer, type IpcServer } from '../../http/ipc/ipc-server.js';
import type { Envelope } from '../../streams/contract.js';
import { tempDir } from '../support/temp-dir.js';

export interface IpcNode {
  engine: Engine;
  ops: ControlOps;
  ipc: IpcServer;
  stateDir: string;
  socketPath: string;
  /** Port of the `mixed-in` inbound (SOCKS5 and HTTP proxy). */
  proxyPort: number;
  logFile: string;
  /** Every envelope the node published since start. */
  published: Envelope[];
  stop(): Promise<void>;
}

export interface IpcNodeOptions {
  /** The `route` section. @defaultValue rule mode, no rules, final `direct` */
  route?: Record<string, unknown>;
  /** Passed to startIpcServer, e.g. a small backlog bound. */
  maxBacklogBytes?: number;
}

/**
 * Starts a node in this process (Engine, ControlOps and the IPC server) from a config
 * literal, with its state dir and socket in a fresh temp dir: a mixed inbound on a
 * free port, `direct` and `block` outbounds and a selector `proxy` of both.
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
    outbounds: [
      { type: 'direct', tag: 'direct' },
      { type: 'block', tag: 'block' },
      { type: 'selector', tag: 'proxy', members: ['direct', 'block'], default: 'direct' },
    ],
    route: opts.route ?? { mode: 'rule', rules: [], final: 'direct' },
  });
  const parsed = source.load();
  if (!parsed.ok) throw new Error(`bad test config: ${JSON.stringify(parsed.problems)}`);
  const config = parsed.config;
  const { log, log_files } = createLogger({ level: config.log.level, file: config.log.file });
  const build = { git_hash: 'test', features: [], build_profile: 'test', binary_sha256: 'test' };
  const engine = new Engine({ config, log, build });
  const published: Envelope[] = [];
  engine.bus.events$.subscribe((e) => published.push(e));
  await engine.start();
  const ops = new ControlOps(engine, {
    build,
    configPath: null,
    configSource: source,
    logFiles: log_files,
    getLogLevel: () => log.level,
    setLogLevel: (level) => (log.level = level),
  });
  const ipc = await startIpcServer(ops, {
    path: config.control.ipc,
    log,
    publish: (e) => engine.bus.publish(e),
    ...(opts.maxBacklogBytes === undefined ? {} : { maxBacklogBytes: opts.maxBacklogBytes }),
  });
  return {
    engine,
    ops,
    ipc,
    stateDir,
    socketPath: config.control.ipc,
    proxyPort: engine.inbounds[0]!.address()!.port,
    logFile,
    published,
    stop: async () => {
      await ipc.close();
      await engine.stop('test');
      log.flush();
    },
  };
}
