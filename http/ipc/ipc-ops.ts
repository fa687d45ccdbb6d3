import { ControlError } from '../../actors/control/control-error.js';
import type { ControlOps } from '../../actors/control/control-ops.js';

/** The part of the control operations the IPC channel reaches. */
export type IpcControl = Pick<
  ControlOps,
  | 'stats'
  | 'flows'
  | 'flow'
  | 'closeFlow'
  | 'select'
  | 'probe'
  | 'setMode'
  | 'runtime'
  | 'policies'
  | 'sinks'
  | 'setLogLevel'
  | 'subscribe'
  | 'applyConfig'
  | 'reload'
  | 'deadLetters'
  | 'replayDeadLetters'
>;

type Body = Readonly<Record<string, unknown>>;

function requireString(body: Body, op: string, field: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value === '') throw new ControlError('INVALID_BODY', `${op} needs a string "${field}"`);
  return value;
}

function optionalString(body: Body, op: string, field: string): string | null {
  const value = body[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new ControlError('INVALID_BODY', `${op}: "${field}" must be a string`);
  return value;
}

/** Each IPC operation, as a thin call of the matching control operation. */
const OPERATIONS: Record<string, (ops: IpcControl, body: Body) => unknown> = {
  'flows.list': (ops) => ops.flows(),
  'flows.get': (ops, b) => ops.flow(requireString(b, 'flows.get', 'flow_id')),
  'flows.close': (ops, b) => ops.closeFlow(requireString(b, 'flows.close', 'flow_id')),
  select: (ops, b) => ops.select(requireString(b, 'select', 'selector'), requireString(b, 'select', 'member')),
  'policies.probe': (ops, b) => ops.probe(requireString(b, 'policies.probe', 'tag')),
  mode: (ops, b) => ops.setMode(requireString(b, 'mode', 'mode'), optionalString(b, 'mode', 'target')),
  status: (ops) => ops.runtime(),
  policies: (ops) => ops.policies(),
  sinks: (ops) => ops.sinks(),
  log_level: (ops, b) => ops.setLogLevel(requireString(b, 'log_level', 'level')),
  'config.apply': (ops, b) => ops.applyConfig(b['config']),
  'config.reload': (ops) => ops.reload(),
  'sinks.dead_letters': (ops, b) => ops.deadLetters(requireString(b, 'sinks.dead_letters', 'sink')),
  'sinks.replay': (ops, b) => ops.replayDeadLetters(requireString(b, 'sinks.replay', 'sink'), optionalIds(b)),
};

function optionalIds(body: Body): string[] | undefined {
  const ids = body['ids'];
  if (ids === undefined || ids === null) return undefined;
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
    throw new ControlError('INVALID_BODY', 'sinks.replay: "ids" must be an array of event ids');
  }
  return ids;
}

const IPC_OPERATIONS: readonly string[] = Object.keys(OPERATIONS);

/** Runs one operation (a Promise for one that waits, like a probe); failures are ControlErrors (UNSUPPORTED_OPERATION for an unknown op). */
export function runOperation(ops: IpcControl, op: string, body: Body): unknown {
  const run = Object.hasOwn(OPERATIONS, op) ? OPERATIONS[op] : undefined;
  if (!run) {
    throw new ControlError('UNSUPPORTED_OPERATION', `unknown operation "${op}" (known: ${IPC_OPERATIONS.join(', ')})`);
  }
  return run(ops, body);
}
