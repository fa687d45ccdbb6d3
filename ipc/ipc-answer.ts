import type { Logger } from 'pino';
import { auditTarget } from '../actors/control/audit-trail.js';
import { ControlError } from '../actors/control/control-error.js';
import { isWriteOperation } from '../actors/control/write-operations.js';
import { type IpcErrorReply, type IpcReply, type IpcRequest, withId } from './ipc-messages.js';
import { runOperation, type IpcControl } from './ipc-ops.js';

export type OneShotRequest = Exclude<IpcRequest, { kind: 'subscribe' }>;

function failure(err: unknown, request: OneShotRequest, log: Logger): IpcErrorReply {
  if (err instanceof ControlError) {
    const reply: IpcErrorReply = { type: 'error', code: err.code, message: err.message };
    return err.details === undefined ? reply : { ...reply, details: err.details };
  }
  // Only registry errors are shown: an unexpected one may carry internals.
  log.error({ err, request: request.kind === 'op' ? request.op : 'stats' }, 'IPC request failed');
  return { type: 'error', code: 'INTERNAL', message: 'internal error' };
}

/**
 * The one reply line to a stats query or an operation: synchronous for every
 * operation but those that wait on the network (a manual probe round). A write is
 * recorded in the audit trail with its result.
 */
export function answerRequest(ops: IpcControl, request: OneShotRequest, log: Logger): IpcReply | Promise<IpcReply> {
  const reply = answer(ops, request, log);
  if (request.kind !== 'op' || !isWriteOperation(request.op)) return reply;
  const operation = request.op;
  const record = (r: IpcReply): IpcReply => {
    ops.audit({
      // Node has no SO_PEERCRED: the socket's mode 0600 admits the node's own uid (and root) only.
      caller: { transport: 'ipc', key_id: null, remote: null, uid: process.getuid?.() ?? -1 },
      operation,
      target: auditTarget(operation, request.body),
      result: r.type === 'error' ? 'error' : 'ok',
      code: r.type === 'error' ? r.code : null,
    });
    return r;
  };
  return reply instanceof Promise ? reply.then(record) : record(reply);
}

function answer(ops: IpcControl, request: OneShotRequest, log: Logger): IpcReply | Promise<IpcReply> {
  try {
    if (request.kind === 'stats') return withId({ type: 'stats', stats: ops.stats() }, request.id);
    const result = runOperation(ops, request.op, request.body);
    const reply = (value: unknown): IpcReply => withId({ type: 'result', op: request.op, result: value }, request.id);
    if (!(result instanceof Promise)) return reply(result);
    return result.then(reply, (err: unknown) => withId(failure(err, request, log), request.id));
  } catch (err) {
    return withId(failure(err, request, log), request.id);
  }
}
