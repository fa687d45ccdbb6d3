import { z } from 'zod';
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

const NO_ID = 'no integer "id"';

/** An object, or an array, which is then an answer with no id. */
const answerLine = z.custom<Record<string, unknown>>((value) => typeof value === 'object' && value !== null, { error: 'not a JSON object' });

const answerId = z.number({ error: NO_ID }).refine(Number.isInteger, { error: NO_ID });

const NO_OUTBOUND = '"route" without an "outbound" tag';

/** The verdict's fields only: whatever else the answer holds is dropped. */
const verdict: z.ZodType<HookVerdict> = z.discriminatedUnion(
  'action',
  [
    z.object({ action: z.literal('allow') }),
    z.object({ action: z.literal('deny') }),
    z.object({ action: z.literal('route'), outbound: z.string({ error: NO_OUTBOUND }).min(1, { error: NO_OUTBOUND }) }),
  ],
  { error: (issue) => `unknown action ${JSON.stringify((issue.input as Record<string, unknown>)['action'])}` },
);

/** The words of the first thing wrong with a value. */
function firstIssue(error: z.ZodError): string {
  return error.issues[0]!.message;
}

export function parseHookAnswer(line: string): HookAnswer {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { id: null, error: 'not JSON' };
  }
  const answer = answerLine.safeParse(value);
  if (!answer.success) return { id: null, error: firstIssue(answer.error) };
  const id = answerId.safeParse(answer.data['id']);
  if (!id.success) return { id: null, error: firstIssue(id.error) };
  const said = verdict.safeParse(answer.data);
  return said.success ? { id: id.data, verdict: said.data } : { id: id.data, error: firstIssue(said.error) };
}
