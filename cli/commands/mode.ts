import type { RouteMode } from '../../streams/contract.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { printJson } from '../format.js';
import { callNode } from '../call-node.js';
import type { ClientFlags } from '../socket-path.js';

const USAGE = 'usage: weir mode | weir mode rule | weir mode global <target_tag>';

interface ModeView {
  mode: RouteMode;
  global_target: string | null;
}

function setMode(mode: string, target: string | undefined, flags: ClientFlags): Promise<ModeView> {
  const request = mode === 'global' ? { op: 'mode', mode, target } : { op: 'mode', mode };
  return callNode(flags, request) as Promise<ModeView>;
}

/** The mode as the node's status reports it: reading it changes nothing. */
async function currentMode(flags: ClientFlags): Promise<ModeView> {
  return ((await callNode(flags, { op: 'status' })) as { mode: ModeView }).mode;
}

/**
 * `weir mode` shows the routing mode; `weir mode rule` / `weir mode global <target_tag>`
 * set it for the flows that start next. Both print the mode in effect after the call.
 */
export async function modeCommand(args: readonly string[], flags: ClientFlags): Promise<number> {
  const [mode, target, ...rest] = args;
  const valid = rest.length === 0 && (mode === undefined || (mode === 'rule' && target === undefined) || (mode === 'global' && !!target));
  if (!valid) throw new UsageError(USAGE);
  const result = mode === undefined ? await currentMode(flags) : await setMode(mode, target, flags);
  if (flags.json) printJson(result);
  else process.stdout.write(result.mode === 'global' ? `mode global -> ${result.global_target}\n` : 'mode rule\n');
  return EXIT.ok;
}
