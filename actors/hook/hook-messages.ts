import type { FlowAuth, FlowSource, FlowTarget, Network, TagProtocol } from '../../streams/contract.js';

/** What the hook is told about a new flow: one JSON line. */
export interface HookQuery {
  flow_id: string;
  network: Network;
  inbound: TagProtocol;
  source?: FlowSource;
  target: FlowTarget;
  auth: Pick<FlowAuth, 'scheme' | 'principal_key'>;
}

/** The hook's answer; a route override names an outbound tag (a leaf or a group). */
export type HookVerdict = { action: 'allow' } | { action: 'deny' } | { action: 'route'; outbound: string };

export const ALLOW: HookVerdict = Object.freeze({ action: 'allow' });

/** The request line: the query with the id its answer must carry back. */
export function hookRequestLine(id: number, query: HookQuery): string {
  return `${JSON.stringify({ id, ...query })}\n`;
}

/** One answer line: its id and verdict, or why it is not an answer. */
export type HookAnswer = { id: number; verdict: HookVerdict } | { id: number | null; error: string };

export function parseHookAnswer(line: string): HookAnswer {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { id: null, error: 'not JSON' };
  }
  if (typeof value !== 'object' || value === null) return { id: null, error: 'not a JSON object' };
  const { id, action, outbound } = value as Record<string, unknown>;
  if (typeof id !== 'number' || !Number.isInteger(id)) return { id: null, error: 'no integer "id"' };
  if (action === 'allow' || action === 'deny') return { id, verdict: { action } };
  if (action === 'route') {
    if (typeof outbound === 'string' && outbound !== '') return { id, verdict: { action, outbound } };
    return { id, error: '"route" without an "outbound" tag' };
  }
  return { id, error: `unknown action ${JSON.stringify(action)}` };
}
