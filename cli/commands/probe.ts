import { EXIT, UsageError } from '../exit-codes.js';
import { printJson, table } from '../format.js';
import { callNode } from '../call-node.js';
import type { ClientFlags } from '../socket-path.js';

interface ProbeResult {
  policy_tag: string;
  selected: string;
  members: { target_tag: string; healthy: boolean; latency_ms: number | null; error: string | null }[];
}

/**
 * `weir probe <url_test_tag>`: runs a manual probe round and prints its result. A round
 * in which no member is healthy exits 1, so a script or a health check sees it.
 */
export async function probeCommand(args: readonly string[], flags: ClientFlags): Promise<number> {
  const [tag, ...rest] = args;
  if (!tag || rest.length > 0) throw new UsageError('usage: weir probe <url_test_tag>');
  const result = (await callNode(flags, { op: 'policies.probe', tag })) as ProbeResult;
  if (flags.json) printJson(result);
  else {
    process.stdout.write(`${result.policy_tag}: selected ${result.selected}\n`);
    const rows = result.members.map((m) => [m.target_tag, m.healthy ? 'yes' : 'no', m.latency_ms === null ? '-' : `${m.latency_ms} ms`, m.error ?? '-']);
    process.stdout.write(table(['member', 'healthy', 'latency', 'error'], rows));
  }
  if (result.members.some((m) => m.healthy)) return EXIT.ok;
  process.stderr.write(`weir: no member of ${result.policy_tag} is healthy\n`);
  return EXIT.failure;
}
