import { z } from 'zod';
import { ControlError } from '../actors/control/control-error.js';
import { FLOW_PAGE, type ControlOps } from '../actors/control/control-ops.js';
import { logLevelBody, modeBody, nonEmpty, replayBody, selectBody } from '../actors/control/operation-bodies.js';
import { parseBody } from '../actors/control/parse-body.js';
import { joinSlices } from '../streams/records-json.js';
import { RawJson } from './ipc-messages.js';

/** The part of the control operations the IPC channel reaches. */
export type IpcControl = Pick<
  ControlOps,
  | 'stats'
  | 'flowSlices'
  | 'activeFlowPage'
  | 'flow'
  | 'completedFlows'
  | 'closeFlow'
  | 'select'
  | 'probe'
  | 'setMode'
  | 'runtime'
  | 'policies'
  | 'principals'
  | 'resetPrincipals'
  | 'freshSinks'
  | 'setLogLevel'
  | 'subscribe'
  | 'applyConfig'
  | 'reload'
  | 'deadLetters'
  | 'replayDeadLetters'
  | 'audit'
>;

type Body = Readonly<Record<string, unknown>>;
type Operation = (ops: IpcControl, body: Body) => unknown;

// What REST takes from the path (a flow id, a policy or sink tag), an IPC request names
// as a field; the rest of the request is the REST body, parsed with the same schema.
// An operation REST takes no body for ignores other fields, as REST ignores a body there.
const flowFields = z.object({ flow_id: nonEmpty });
const selectFields = selectBody.extend({ selector: nonEmpty });
const probeFields = z.object({ tag: nonEmpty });
// Strict: a misspelt filter must not pass as absent and widen the answer.
const completedFields = z.strictObject({
  limit: z.number().int().min(1).max(FLOW_PAGE.max).optional(),
  before: z.union([z.number().int().min(0), nonEmpty]).optional(),
  principal: nonEmpty.nullable().optional(),
  outbound: nonEmpty.optional(),
  outcome: nonEmpty.optional(),
  since_unix_ms: z.number().int().min(0).optional(),
  until_unix_ms: z.number().int().min(0).optional(),
});
// Strict for the same reason: a misspelt `limit` must not list the whole table.
const listFields = z.strictObject({
  limit: z.number().int().min(1).max(FLOW_PAGE.max).optional(),
  after: z.number().int().min(0).optional(),
});
const sinkFields = z.object({ sink: nonEmpty });
const replayFields = replayBody.extend({ sink: nonEmpty });

/** An operation whose request fields are checked by `schema` before `run` sees them. */
function parsed<T>(schema: z.ZodType<T>, run: (ops: IpcControl, fields: T) => unknown): Operation {
  return (ops, body) => run(ops, parseBody(schema, body));
}

/** flows.list: every active flow as an array, or with `limit` or `after` a page `{flows, next}` (as REST). */
async function listActive(ops: IpcControl, f: z.infer<typeof listFields>): Promise<RawJson> {
  if (f.limit === undefined && f.after === undefined) return new RawJson(await joinSlices(ops.flowSlices()));
  const page = ops.activeFlowPage(f);
  return new RawJson(`{"flows":${await joinSlices(page.slices)},"next":${JSON.stringify(page.next)}}`);
}

/** Each IPC operation, as a thin call of the matching control operation. */
const OPERATIONS: Record<string, Operation> = {
  'flows.list': parsed(listFields, (ops, f) => listActive(ops, f)),
  'flows.completed': parsed(completedFields, (ops, f) => ops.completedFlows(f)),
  'flows.get': parsed(flowFields, (ops, f) => ops.flow(f.flow_id)),
  'flows.close': parsed(flowFields, (ops, f) => ops.closeFlow(f.flow_id)),
  select: parsed(selectFields, (ops, f) => ops.select(f.selector, f.member)),
  'policies.probe': parsed(probeFields, (ops, f) => ops.probe(f.tag)),
  mode: parsed(modeBody, (ops, f) => ops.setMode(f.mode, f.target)),
  status: (ops) => ops.runtime(),
  policies: (ops) => ops.policies(),
  principals: (ops) => ops.principals(),
  'principals.reset': (ops) => ops.resetPrincipals(),
  sinks: (ops) => ops.freshSinks(),
  log_level: parsed(logLevelBody, (ops, f) => ops.setLogLevel(f.level)),
  // ControlOps validates the config sections, for REST and IPC alike.
  'config.apply': (ops, b) => ops.applyConfig(b),
  'config.reload': (ops) => ops.reload(),
  'sinks.dead_letters': parsed(sinkFields, (ops, f) => ops.deadLetters(f.sink)),
  'sinks.replay': parsed(replayFields, (ops, f) => ops.replayDeadLetters(f.sink, f.ids)),
};

const IPC_OPERATIONS: readonly string[] = Object.keys(OPERATIONS);

/** Runs one operation (a Promise for one that waits, like a probe); failures are ControlErrors (UNSUPPORTED_OPERATION for an unknown op). */
export function runOperation(ops: IpcControl, op: string, body: Body): unknown {
  const run = Object.hasOwn(OPERATIONS, op) ? OPERATIONS[op] : undefined;
  if (!run) {
    throw new ControlError('UNSUPPORTED_OPERATION', `unknown operation "${op}" (known: ${IPC_OPERATIONS.join(', ')})`);
  }
  return run(ops, body);
}
