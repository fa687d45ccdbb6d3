import path from 'node:path';
import { ConfigSource } from '../../actors/config/config-source.js';
import type { LogFormat } from '../../actors/engine/logger.js';
import { ensureApiKey } from '../../actors/config/load-config.js';
import { EXIT } from '../exit-codes.js';
import { apiKeyOrigin, readyLine, type ReadyFacts } from '../ready-line.js';
import { startNodeRuntime, type NodeRuntime } from '../node-runtime.js';
import { printProblems } from './validate.js';

/** Where `weir run` without a config (or a config without node.state_dir) keeps its state. */
const DEFAULT_STATE_DIR = process.env['WEIR_STATE_DIR'] ?? './state';

/**
 * The config `weir run -c file` runs on: the file with what config.apply kept in its
 * state dir. `lenientSecrets` for an offline reader (SecretSources.lenient).
 */
export function fileConfigSource(file: string, opts: { lenientSecrets?: boolean } = {}): ConfigSource {
  return new ConfigSource(path.resolve(file), path.resolve(DEFAULT_STATE_DIR), undefined, opts.lenientSecrets);
}

function configSource(file: string | undefined): ConfigSource {
  const stateDir = path.resolve(DEFAULT_STATE_DIR);
  if (file) return fileConfigSource(file);
  const { created } = ensureApiKey(stateDir);
  if (created) {
    process.stderr.write(`weir: generated an API key in ${path.join(stateDir, 'api_key')} (mode 0600); send it as "Authorization: Bearer <key>"\n`);
  }
  return new ConfigSource(null, stateDir);
}

/** `weir run [-c FILE]`: runs the node in the foreground until SIGINT/SIGTERM; SIGHUP reloads the config. */
export async function runCommand(configFile: string | undefined, logFormat: LogFormat): Promise<number> {
  const source = configSource(configFile);
  const result = source.load();
  if (!result.ok) {
    printProblems(configFile ?? '(built-in default)', result.problems);
    return EXIT.failure;
  }
  // Listened for before the node starts: a signal during start-up (inbounds already
  // open, control plane not yet) still gets the graceful stop, not Node's default exit.
  const signal = stopSignal();
  let node: NodeRuntime;
  try {
    node = await startNodeRuntime(result.config, source, logFormat);
  } catch (err) {
    process.stderr.write(`weir: cannot start: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT.failure;
  }
  process.stderr.write(
    readyLine({
      inbounds: (node.ops.runtime() as { inbounds: ReadyFacts['inbounds'] }).inbounds,
      control: node.control,
      controlTls: node.controlTls,
      apiKey: apiKeyOrigin(source.file, path.join(path.resolve(DEFAULT_STATE_DIR), 'api_key')),
      dashboard: result.config.redis !== undefined,
    }),
  );
  process.on('SIGHUP', () => {
    // The certificate is no hot config section: its files are read again on every SIGHUP.
    node.reloadTls();
    // A reload logs what it changed (ControlOps.reload, as `weir reload` does); a refusal is logged here.
    node.ops.reload().catch(
      (err: unknown) => node.log.error({ err: err instanceof Error ? err.message : String(err) }, 'reload refused; the running config is unchanged'),
    );
  });
  await signal;
  try {
    await node.stop('signal');
    return EXIT.ok;
  } catch (err) {
    node.log.error({ err }, 'stop failed');
    process.stderr.write(`weir: stop failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT.failure;
  }
}

/** Resolves on the first SIGINT or SIGTERM; a second one does not wait for the graceful stop. */
function stopSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    let signalled = false;
    const onSignal = (): void => {
      if (signalled) process.exit(EXIT.failure);
      signalled = true;
      resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
