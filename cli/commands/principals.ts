import type { PrincipalsView } from '../../actors/principals/principal-ledger.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { bytes, count, printJson, table } from '../format.js';
import { callNode } from '../call-node.js';
import type { ClientFlags } from '../socket-path.js';

/** Shown for flows without a principal_key (null in the JSON). */
const NO_PRINCIPAL = '(none)';

async function listPrincipals(flags: ClientFlags): Promise<number> {
  const view = (await callNode(flags, { op: 'principals' })) as PrincipalsView;
  if (flags.json) printJson(view);
  else if (view.principals.length === 0) process.stdout.write('no flows yet\n');
  else {
    const headers = ['principal', 'active', 'opened', 'completed', 'failed', 'up', 'down', 'opened (run)', 'up (run)', 'down (run)'];
    const rows = view.principals.map((p) => [
      p.principal_key ?? NO_PRINCIPAL,
      count(p.flows_active),
      count(p.since_reset.flows_opened),
      count(p.since_reset.flows_completed),
      count(p.since_reset.flows_failed),
      bytes(p.since_reset.bytes_up),
      bytes(p.since_reset.bytes_down),
      count(p.since_start.flows_opened),
      bytes(p.since_start.bytes_up),
      bytes(p.since_start.bytes_down),
    ]);
    process.stdout.write(`since reset at ${new Date(view.reset_at_unix_ms).toISOString()}; (run): since this run started\n`);
    process.stdout.write(table(headers, rows));
  }
  return EXIT.ok;
}

async function resetPrincipals(flags: ClientFlags): Promise<number> {
  const result = (await callNode(flags, { op: 'principals.reset' })) as { reset_at_unix_ms: number };
  if (flags.json) printJson(result);
  else process.stdout.write(`principal counters reset at ${new Date(result.reset_at_unix_ms).toISOString()}\n`);
  return EXIT.ok;
}

/** `weir principals [--json]` shows each principal's flows and bytes; `weir principals reset` starts the since_reset window over. */
export function principalsCommand(args: readonly string[], flags: ClientFlags): Promise<number> {
  if (args.length === 0) return listPrincipals(flags);
  if (args.length === 1 && args[0] === 'reset') return resetPrincipals(flags);
  throw new UsageError('usage: weir principals [--json] | weir principals reset');
}
