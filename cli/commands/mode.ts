import type { RouteMode } from '../../streams/contract.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { printJson } from '../format.js';
import { callNode } from '../call-node.js';
import type { ClientFlags } from '../socket-path.js';

const USAGE = 'usage: weir mode rule | weir mode global <target_tag>';

/** `weir mode rule` / `weir mode global <target_tag>`: the routing mode of the flows that start next. */
export async function modeCommand(args: readonly string[], flags: ClientFlags): Promise<number> {
  const [mode, target, ...rest] = args;
  const valid = rest.length === 0 && ((mode === 'rule' && target === undefined) || (mode === 'global' && !!target));
  if (!valid) throw new UsageError(USAGE);
  const request = mode === 'global' ? { op: 'mode', mode, target } : { op: 'mode', mode };
  const result = (await callNode(flags, request)) as { mode: RouteMode; global_target: string | null };
  if (flags.json) printJson(result);
  else process.stdout.write(result.mode === 'global' ? `mode global -> ${result.global_target}\n` : 'mode rule\n');
  return EXIT.ok;
}
