import { EXIT } from '../exit-codes.js';
import { printJson } from '../format.js';
import { callNode } from '../call-node.js';
import type { ClientFlags } from '../socket-path.js';

/** `weir reload`: re-reads the config file like SIGHUP; hot sections take effect, a refused file changes nothing (exit 4). */
export async function reloadCommand(flags: ClientFlags): Promise<number> {
  const result = await callNode(flags, { op: 'config.reload' });
  if (flags.json) printJson(result);
  else process.stdout.write(`${(result as { changed: boolean }).changed ? 'configuration reloaded' : 'configuration unchanged'}\n`);
  return EXIT.ok;
}
