import path from 'node:path';
import { defaultConfig, ensureApiKey, loadConfigFile, parseConfig, type ConfigResult } from '../../actors/config/load-config.js';
import { EXIT } from '../exit-codes.js';
import { startNodeRuntime, type NodeRuntime } from '../node-runtime.js';
import { printProblems } from './validate.js';

/** Where `weir run` without a config keeps its state. */
const DEFAULT_STATE_DIR = process.env['WEIR_STATE_DIR'] ?? './state';

function loadOrDefault(file: string | undefined): { source: string; result: ConfigResult } {
  if (file) return { source: file, result: loadConfigFile(file) };
  const stateDir = path.resolve(DEFAULT_STATE_DIR);
  const { created } = ensureApiKey(stateDir);
  if (created) {
    process.stderr.write(`weir: generated an API key in ${path.join(stateDir, 'api_key')} (mode 0600); send it as "Authorization: Bearer <key>"\n`);
  }
  return { source: '(built-in default)', result: parseConfig(defaultConfig(stateDir)) };
}

/** `weir run [-c FILE]`: runs the node in the foreground until SIGINT/SIGTERM. */
export async function runCommand(configFile: string | undefined): Promise<number> {
  const { source, result } = loadOrDefault(configFile);
  if (!result.ok) {
    printProblems(source, result.problems);
    return EXIT.failure;
  }
  let node: NodeRuntime;
  try {
    node = await startNodeRuntime(result.config, configFile ? path.resolve(configFile) : null);
  } catch (err) {
    process.stderr.write(`weir: cannot start: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT.failure;
  }
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
