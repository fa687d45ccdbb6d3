import { EXIT } from '../exit-codes.js';
import { printJson } from '../format.js';
import { callNode } from '../call-node.js';
import type { ClientFlags } from '../socket-path.js';
import type { ConfigApplied } from '../../actors/engine/engine.js';

/**
 * `weir reload`: re-reads the config file like SIGHUP; hot sections take effect, a refused
 * file changes nothing (exit 4), and what only a restart applies is named.
 */
export async function reloadCommand(flags: ClientFlags): Promise<number> {
  const result = (await callNode(flags, { op: 'config.reload' })) as ConfigApplied;
  if (flags.json) printJson(result);
  else {
    process.stdout.write(`${result.changed ? 'configuration reloaded' : 'configuration unchanged'}\n`);
    if (result.restart_required.length > 0) process.stdout.write(`restart needed for: ${result.restart_required.join(', ')}\n`);
  }
  return EXIT.ok;
}
