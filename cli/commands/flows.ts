import type { FlowRecord } from '../../streams/contract.js';
import { UsageError, EXIT } from '../exit-codes.js';
import { age, bytes, printJson, table } from '../format.js';
import { callNode } from '../call-node.js';
import type { ClientFlags } from '../socket-path.js';

function row(r: FlowRecord, now: number): string[] {
  return [
    r.flow_id,
    r.state,
    r.inbound.tag,
    `${r.target.host}:${r.target.port}`,
    r.path.outbound?.tag ?? r.route.target ?? '-',
    bytes(r.traffic.bytes_up),
    bytes(r.traffic.bytes_down),
    age(now - r.timing.started_at_unix_ms),
  ];
}

async function listFlows(flags: ClientFlags): Promise<number> {
  const records = (await callNode(flags, { op: 'flows.list' })) as FlowRecord[];
  if (flags.json) printJson(records);
  else if (records.length === 0) process.stdout.write('no active flows\n');
  else {
    const now = Date.now();
    const headers = ['flow_id', 'state', 'inbound', 'target', 'outbound', 'up', 'down', 'age'];
    process.stdout.write(table(headers, records.map((r) => row(r, now))));
  }
  return EXIT.ok;
}

async function closeFlow(flowId: string | undefined, flags: ClientFlags): Promise<number> {
  if (!flowId) throw new UsageError('usage: weir flows close <flow_id>');
  const result = await callNode(flags, { op: 'flows.close', flow_id: flowId });
  if (flags.json) printJson(result);
  else process.stdout.write(`closing flow ${flowId}\n`);
  return EXIT.ok;
}

/** `weir flows [--json]` lists the active flows; `weir flows close <flow_id>` ends one (cancelled/manual). */
export function flowsCommand(args: readonly string[], flags: ClientFlags): Promise<number> {
  const [sub, flowId, ...rest] = args;
  if (sub === undefined) return listFlows(flags);
  if (sub === 'close' && rest.length === 0) return closeFlow(flowId, flags);
  throw new UsageError('usage: weir flows [--json] | weir flows close <flow_id>');
}
