import type { PolicyView } from '../../actors/control/control-ops.js';
import { EXIT } from '../exit-codes.js';
import { printJson, table } from '../format.js';
import { callNode } from '../call-node.js';
import type { ClientFlags } from '../socket-path.js';

/** `weir policies [--json]`: every selector and url_test group with its current choice. */
export async function policiesCommand(flags: ClientFlags): Promise<number> {
  const policies = (await callNode(flags, { op: 'policies' })) as PolicyView[];
  if (flags.json) printJson(policies);
  else if (policies.length === 0) process.stdout.write('no policies\n');
  else {
    const rows = policies.map((p) => [p.tag, p.kind, p.selected, p.members.join(', ')]);
    process.stdout.write(table(['tag', 'kind', 'selected', 'members'], rows));
  }
  return EXIT.ok;
}
