import { EXIT, UsageError } from '../exit-codes.js';
import { printJson } from '../format.js';
import { callNode } from '../call-node.js';
import type { ClientFlags } from '../socket-path.js';

interface Selected {
  policy_tag: string;
  selected: string;
  previous: string;
}

/** `weir select <selector_tag> <member_tag>`: only a direct member is accepted (else exit 4). */
export async function selectCommand(args: readonly string[], flags: ClientFlags): Promise<number> {
  const [selector, member, ...rest] = args;
  if (!selector || !member || rest.length > 0) throw new UsageError('usage: weir select <selector_tag> <member_tag>');
  const result = (await callNode(flags, { op: 'select', selector, member })) as Selected;
  if (flags.json) printJson(result);
  else process.stdout.write(`${result.policy_tag}: ${result.selected} (was ${result.previous})\n`);
  return EXIT.ok;
}
