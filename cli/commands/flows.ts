import type { HistoryPage } from '../../actors/flows/flow-history.js';
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

/** A page of the active flows, as flows.list answers with `limit` or `after`. */
interface ActivePage {
  flows: FlowRecord[];
  next: number | null;
}

/** Every active flow, or with `--limit` or `--after` a page of them and the next page's `--after`. */
async function listFlows(flags: FlowsFlags): Promise<number> {
  const request: Record<string, unknown> = { op: 'flows.list' };
  if (flags.limit !== undefined) request['limit'] = flags.limit;
  if (flags.after !== undefined) request['after'] = flags.after;
  const answer = (await callNode(flags, request)) as FlowRecord[] | ActivePage;
  if (flags.json) {
    printJson(answer);
    return EXIT.ok;
  }
  const records = Array.isArray(answer) ? answer : answer.flows;
  if (records.length === 0) process.stdout.write('no active flows\n');
  else {
    const now = Date.now();
    const headers = ['flow_id', 'state', 'inbound', 'target', 'outbound', 'up', 'down', 'age'];
    process.stdout.write(table(headers, records.map((r) => row(r, now))));
  }
  if (!Array.isArray(answer) && answer.next !== null) process.stdout.write(`more: --after ${answer.next}\n`);
  return EXIT.ok;
}

/** The options of `weir flows` (`limit`, `after`) and the filters of `weir flows completed`, as IPC takes them. */
export interface FlowsFlags extends ClientFlags {
  limit?: number | undefined;
  after?: number | undefined;
  principal?: string | undefined;
  outbound?: string | undefined;
  outcome?: string | undefined;
}

async function listCompleted(flags: FlowsFlags): Promise<number> {
  const request: Record<string, unknown> = { op: 'flows.completed' };
  if (flags.limit !== undefined) request['limit'] = flags.limit;
  // `--principal ''` asks for the flows without one.
  if (flags.principal !== undefined) request['principal'] = flags.principal === '' ? null : flags.principal;
  if (flags.outbound !== undefined) request['outbound'] = flags.outbound;
  if (flags.outcome !== undefined) request['outcome'] = flags.outcome;
  const page = (await callNode(flags, request)) as HistoryPage;
  if (flags.json) printJson(page);
  else if (page.flows.length === 0) process.stdout.write('no completed flows kept\n');
  else {
    const now = Date.now();
    const headers = ['sequence', 'flow_id', 'principal', 'outcome', 'failure', 'target', 'outbound', 'up', 'down', 'ended'];
    const rows = page.flows.map((f) => [
      String(f.sequence),
      f.record.flow_id,
      f.principal_key ?? '(none)',
      f.record.result?.outcome ?? '-',
      f.record.result?.failure?.code ?? '-',
      `${f.record.target.host}:${f.record.target.port}`,
      f.record.path.outbound?.tag ?? '-',
      bytes(f.record.traffic.bytes_up),
      bytes(f.record.traffic.bytes_down),
      `${age(now - (f.record.timing.ended_at_unix_ms ?? now))} ago`,
    ]);
    process.stdout.write(table(headers, rows));
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

/**
 * `weir flows [--json] [--limit N] [--after N]` lists the active flows, or a page of them; `weir flows completed` the recent
 * completed ones, newest first; `weir flows close <flow_id>` ends one (cancelled/manual).
 */
export function flowsCommand(args: readonly string[], flags: FlowsFlags): Promise<number> {
  const [sub, flowId, ...rest] = args;
  if (sub === undefined) return listFlows(flags);
  if (sub === 'completed' && flowId === undefined) return listCompleted(flags);
  if (sub === 'close' && rest.length === 0) return closeFlow(flowId, flags);
  throw new UsageError(
    'usage: weir flows [--json] [--limit N] [--after N] | weir flows completed [--json] [--limit N] [--principal KEY] [--outbound TAG] [--outcome OUTCOME] | weir flows close <flow_id>',
  );
}
