import path from 'node:path';
import { ConfigSource } from '../../actors/config/config-source.js';
import { ensureApiKey } from '../../actors/config/load-config.js';
import { EXIT } from '../exit-codes.js';
import { startNodeRuntime, type NodeRuntime } from '../node-runtime.js';
import { printProblems } from './validate.js';

/** Where `weir run` without a config keeps its state. */
const DEFAULT_STATE_DIR = process.env['WEIR_STATE_DIR'] ?? './state';

function configSource(file: string | undefined): ConfigSource {
  const stateDir = path.resolve(DEFAULT_STATE_DIR);
  if (file) return new ConfigSource(path.resolve(file), stateDir);
  const { created } = ensureApiKey(stateDir);
  if (created) {
    process.stderr.write(`weir: generated an API key in ${path.join(stateDir, 'api_key')} (mode 0600); send it as "Authorization: Bearer <key>"\n`);
  }
  return new ConfigSource(null, stateDir);
}

/** `weir run [-c FILE]`: runs the node in the foreground until SIGINT/SIGTERM; SIGHUP reloads the config. */
export async function runCommand(configFile: string | undefined): Promise<number> {
  const source = configSource(configFile);
  const result = source.load();
  if (!result.ok) {
    printProblems(configFile ?? '(built-in default)', result.problems);
    return EXIT.failure;
  }
  let node: NodeRuntime;
  try {
    node = await startNodeRuntime(result.config, source);
  } catch (err) {
    process.stderr.write(`weir: cannot start: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT.failure;
  }
  process.on('SIGHUP', () => {
    node.ops.reload().then(
      (applied) => node.log.info({ applied }, 'configuration reloaded'),
      (err: unknown) => node.log.error({ err: err instanceof Error ? err.message : String(err) }, 'reload refused; the running config is unchanged'),
    );
  });
  return new Promise<number>((resolve) => {
    let signalled = false;
    const onSignal = (): void => {
      // A second Ctrl+C does not wait for the graceful stop.
      if (signalled) process.exit(EXIT.failure);
      signalled = true;
      node.stop('signal').then(
        () => resolve(EXIT.ok),
        (err: unknown) => {
          node.log.error({ err }, 'stop failed');
          resolve(EXIT.failure);
        },
      );
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
